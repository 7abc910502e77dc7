// Wire shapes of the HTTP interface the renderer reads and writes: the Static types of the TypeBox
// schemas that validate and document the server's requests and answers (main/server/schemas), so a
// changed schema field breaks the renderer's typecheck. Only types cross over: nothing here is bundled.
import type { Static, TSchema } from 'typebox';
import type { ApiKeyCreated, ApiKeyListItem, Info } from '../../../main/server/schemas/app.js';
import type { CatalogItem } from '../../../main/server/schemas/catalogs.js';
import type { Envelope } from '../../../main/server/schemas/common.js';
import type { DataKpi, DataVisit as DataVisitListItem, DataVisitDetail } from '../../../main/server/schemas/data-api.js';
import type { DisplayBoundItem, DisplayItem, MhlRecordItem, PlanogramRecordItem } from '../../../main/server/schemas/master-data.js';
import type {
  Crop as CropSchema,
  PhotoOverlapAnswer,
  RecognizeBody,
  RecognizeCreated,
  ReportItem,
  ReportType,
  SceneMessageItem,
  SkuImageItem,
  UploadCreated,
} from '../../../main/server/schemas/recognition.js';
import type { AnnotationBox as AnnotationBoxSchema, CorrectionItem, SuggestionsAnswer, SuggestionsBody as SuggestionsBodySchema, AnnotationsPutBody, AnnotationsSaved, ImageAnnotations, ReviewConflict as ReviewConflictSchema, SceneAnnotations as SceneAnnotationsSchema } from '../../../main/server/schemas/review.js';
import type { SkuItem } from '../../../main/server/schemas/skus.js';
import type { PriceCreate, PriceItem, PriceTagsPutBody, PriceTagsSaved, ScenePriceTags as ScenePriceTagsSchema } from '../../../main/server/schemas/prices.js';
import type { SyncSettings as SyncSettingsSchema, SyncSettingsBody as SyncSettingsBodySchema, SyncStatus as SyncStatusSchema } from '../../../main/server/schemas/sync.js';
import type { VisitItem } from '../../../main/server/schemas/visits.js';
import type { PhotoQuality as PhotoQualitySchema, QualityThresholds as QualityThresholdsSchema, VisitMarks as VisitMarksSchema, VisitQuality as VisitQualitySchema } from '../../../main/server/schemas/quality.js';

/** A list page: the envelope of any list, with its items typed. */
export type Page<T> = Omit<Static<ReturnType<typeof Envelope<TSchema>>>, 'results'> & { results: T[] };

export type NamedRecord = Static<typeof CatalogItem>;
export type Brand = NamedRecord;
export type Category = NamedRecord;
export type Manufacturer = NamedRecord;
export type Sku = Static<typeof SkuItem>;
export type Crop = Static<typeof CropSchema>;
export type SkuImage = Static<typeof SkuImageItem>;
export type Upload = Static<typeof UploadCreated>;
export type PhotoOverlap = Static<typeof PhotoOverlapAnswer>;
export type Display = Static<typeof DisplayItem>;
export type Planogram = Static<typeof DisplayBoundItem>;
export type Mhl = Static<typeof DisplayBoundItem>;
export type PlanogramRecord = Static<typeof PlanogramRecordItem>;
export type MhlRecord = Static<typeof MhlRecordItem>;
export type Visit = Static<typeof VisitItem>;
/** A Data API visit: the list's fields, and the detail's once it is read by id. */
export type DataVisit = Static<typeof DataVisitListItem> & Partial<Static<typeof DataVisitDetail>>;
export type KpiValue = Static<typeof DataVisitDetail>['kpi_values'][number];
export type Kpi = Static<typeof DataKpi>;
export type { ReportType };
export type ReportStatus = Static<typeof ReportItem>['status'];
/** A report; `J` is its body's type once READY (the report builders' own types, below). */
export type Report<J = unknown> = Omit<Static<typeof ReportItem>, 'json'> & { json: J | null };
export type RecognizeRequest = Static<typeof RecognizeBody>;
export type RecognizeResponse = Static<typeof RecognizeCreated>;
export type PhotoQuality = Static<typeof PhotoQualitySchema>;
export type QualityThresholds = Static<typeof QualityThresholdsSchema>;
export type VisitQuality = Static<typeof VisitQualitySchema>;
export type VisitMarks = Static<typeof VisitMarksSchema>;
export type ApiKeyRecord = Omit<Static<typeof ApiKeyListItem>, 'current'> & Partial<Pick<Static<typeof ApiKeyListItem>, 'current'>> & Partial<Pick<Static<typeof ApiKeyCreated>, 'key'>>;
export type AppInfo = Static<typeof Info>;
/** A recognition error or out-of-stock reason sent about a scene. */
export type SceneMessage = Static<typeof SceneMessageItem>;
// The review of a scene's boxes (docs/recognition.md, "Review").
export type SceneAnnotations = Static<typeof SceneAnnotationsSchema>;
export type PhotoAnnotations = Static<typeof ImageAnnotations>;
export type AnnotationBox = Static<typeof AnnotationBoxSchema>;
/** One saved review of a photo: who, when, its boxes before and after. */
export type Correction = Static<typeof CorrectionItem>;
export type AnnotationsCorrection = Static<typeof AnnotationsPutBody>;
export type AnnotationsSavedBody = Static<typeof AnnotationsSaved>;
export type ReviewConflict = Static<typeof ReviewConflictSchema>;
// The price list and the review of price tags (issue 45).
export type Price = Static<typeof PriceItem>;
export type PriceBody = Static<typeof PriceCreate>;
export type ScenePriceTags = Static<typeof ScenePriceTagsSchema>;
export type PriceTagsCorrection = Static<typeof PriceTagsPutBody>;
export type PriceTagsSavedBody = Static<typeof PriceTagsSaved>;
/** A failed row of the master-data import (400 body `failures`). */
export interface ImportFailure {
  entity: string;
  index: number;
  id: string | null;
  errors: Record<string, unknown>;
}

/** The alternatives of an MHL record, in order (field names of MhlRecordItem). */
export const MHL_ALTERNATIVES = ['sku1', 'sku2', 'sku3', 'sku4', 'sku5', 'sku6'] as const satisfies ReadonlyArray<keyof MhlRecord>;
export type MhlAlternative = (typeof MHL_ALTERNATIVES)[number];

/** The report types the screens offer: every type the server builds (checked against its list). */
export const REPORT_TYPES = [
  'FACING_COUNT',
  'PLANOGRAM_COMPLIANCE',
  'MHL_COMPLIANCE',
  'PANORAMA',
  'REALOGRAM',
  'SHARE_OF_SPACE',
  'PRICE_TAGS',
  'PRICE_COMPLIANCE',
] as const satisfies ReadonlyArray<ReportType>;
// A type the server adds and the list above lacks fails here.
export const ALL_REPORT_TYPES_LISTED: Exclude<ReportType, (typeof REPORT_TYPES)[number]> extends never ? true : never = true;

// Report bodies: the server's own types (main/server/scenes/reports/bodies.ts), so the screens read
// exactly what the report builders write.
import type {
  PanoramaBody,
  PlanogramAction,
  PlanogramPosition,
  RealogramAnnotation,
  RealogramImage,
} from '../../../main/server/scenes/reports/bodies.js';

export type {
  FacingCount,
  PriceComplianceBody,
  PriceComplianceItem,
  PriceStatus,
  PriceTagItem,
  PriceTagsImage,
  MhlCompliance,
  PlanogramCompliance,
  PositionStatus,
  RealogramImage,
  ShareOfSpace,
} from '../../../main/server/scenes/reports/bodies.js';
export type CompliancePosition = PlanogramPosition;
export type ComplianceAction = PlanogramAction;
export type Annotation = RealogramAnnotation;
export type Panorama = PanoramaBody;
export type Realogram = RealogramImage[];

/** The laptop's sync state as `GET /api/app/v1/sync/status/` answers it (docs/sync.md). */
export type SyncStatus = Static<typeof SyncStatusSchema>;
export type SyncSettings = Static<typeof SyncSettingsSchema>;
export type SyncSettingsBody = Static<typeof SyncSettingsBodySchema>;

/** The identifier's best SKUs for a box, best first (POST /scenes/{id}/suggestions/). */
export type SkuSuggestions = Static<typeof SuggestionsAnswer>;
export type SuggestionsBody = Static<typeof SuggestionsBodySchema>;
