// Schemas of the recognition endpoints: uploads, SKU reference images, /recognize, reports,
// recognition errors, out-of-stock reasons and the webhook delivery log.
import { Type, type Static } from 'typebox';
import { Id, Nullable, Ref } from './common.js';
import { PhotoQuality, ScenePhotoQuality } from './quality.js';

/** The report types recognition builds: the vocabulary of /recognize and of every report. */
export const REPORT_TYPES = ['FACING_COUNT', 'PLANOGRAM_COMPLIANCE', 'MHL_COMPLIANCE', 'PANORAMA', 'REALOGRAM', 'SHARE_OF_SPACE', 'PRICE_TAGS', 'PRICE_COMPLIANCE'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

const Url = Type.String({ minLength: 1, maxLength: 2048 });

export const UploadItem = Type.Object({
  id: Type.String(),
  url: Type.String({ description: 'Serves the image. The URL carries a secret token, so it works in <img src> without an Authorization header; treat it like a password.' }),
  width: Type.Integer({ description: 'Width as displayed (EXIF orientation applied)' }),
  height: Type.Integer(),
  created_date: Type.String({ format: 'date-time' }),
});
export const UploadCreated = Type.Object({
  ...UploadItem.properties,
  duplicate: Type.Boolean({ description: 'True when the same bytes were uploaded before; the earlier image is returned' }),
  quality: PhotoQuality,
});
/** upload_by_url's answer: the record and the photo's quality. */
export const UploadFetched = Type.Object({ ...UploadItem.properties, quality: PhotoQuality });
export const UploadByUrlBody = Type.Object({ url: Url });
export type UploadByUrlBody = Static<typeof UploadByUrlBody>;
export const UploadContentParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }), token: Type.String({ minLength: 1, maxLength: 128 }) });

export const Crop = Type.Object(
  { x: Type.Number({ minimum: 0 }), y: Type.Number({ minimum: 0 }), w: Type.Number({ minimum: 1 }), h: Type.Number({ minimum: 1 }) },
  { description: 'Region of the image showing the product, in displayed pixels' },
);
export const SkuImageItem = Type.Object({
  id: Type.String(),
  sku: Type.String(),
  upload: Type.String(),
  url: Type.String(),
  crop: Nullable(Crop),
  source: Type.Union([Type.Literal('upload'), Type.Literal('review')], {
    description: "'upload': added by hand; 'review': a box a supervisor corrected, learnt as a reference of its SKU (ours)",
  }),
  created_date: Type.String({ format: 'date-time' }),
});
/** The reference images of many SKUs (`GET /sku_images/`): a screen's pictures in one request. */
export const SkuImageListQuery = Type.Object({
  sku__in: Type.Optional(Type.String({ maxLength: 20_000, description: 'Only images of these SKUs, comma-separated ids' })),
  first: Type.Optional(Type.Boolean({ description: "Only each SKU's first reference image (its picture in the app)" })),
});
/** Form bodies carry the crop as JSON text (`{"x": 0, "y": 0, "w": 10, "h": 20}`); the route parses it. */
const CropText = Type.String({ maxLength: 500, description: 'The crop as JSON text, for form and multipart bodies' });
export const SkuImageCreate = Type.Object({
  image: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Upload id (JSON and form bodies); in a multipart body, the image file itself' })),
  crop: Type.Optional(Type.Union([Nullable(Crop), CropText])),
});
/** The multipart parts a route reads as files: field name -> description (documented as binary parts). */
export type MultipartFiles = Record<string, string>;
export type SkuImageCreate = Static<typeof SkuImageCreate>;
export const SkuImageParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }), image_id: Type.String({ minLength: 1, maxLength: 255 }) });

const ReportType = Type.String({ description: `One of ${REPORT_TYPES.join(', ')}` });
const Display = Type.Union([Id, Type.Array(Id, { maxItems: 1 })], { description: 'Display id (a list of one is accepted)' });

export const RecognizeBody = Type.Object({
  images: Type.Optional(Type.Array(Id, { maxItems: 50, description: 'Upload ids, in rack order (left to right): the overlapping photos of one bay, joined and counted once; at most 16 photos (a 400 beyond)' })),
  display: Type.Optional(Display),
  report_types: Type.Optional(Type.Array(ReportType, { maxItems: 10 })),
  visit: Type.Optional(Id),
  datetime: Type.Optional(Type.String({ maxLength: 64 })),
  webhook: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, pattern: '^https?://' })),
  panorama_stack_height: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
  panorama_stack_width: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
  country_code: Type.Optional(Type.String({ minLength: 2, maxLength: 2 })),
  counry_code: Type.Optional(Type.String({ minLength: 2, maxLength: 2, description: 'The interface\'s misspelling, accepted' })),
  retail_chain: Type.Optional(Type.String({ maxLength: 255 })),
  metadata: Type.Optional(
    Type.Object(
      {
        agent_id: Type.Optional(
          Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'Agent client id: the agent is created if new, and the scene is linked to it' })),
        ),
        agent_name: Type.Optional(
          Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'Names (or renames) the agent of agent_id; without agent_id only a new visit\'s current_agent_name' })),
        ),
      },
      { additionalProperties: true },
    ),
  ),
});
export type RecognizeBody = Static<typeof RecognizeBody>;

export const RecognizeCreated = Type.Object({
  id: Type.String({ description: 'Request id' }),
  images: Type.Array(Type.String()),
  display: Type.Union([Type.String(), Type.Array(Type.String()), Type.Null()]),
  scene: Type.String(),
  visit: Type.String(),
  reports: Type.Record(Type.String(), Type.String(), { description: 'Report type -> report id' }),
  quality: Type.Array(ScenePhotoQuality, { description: "Each photo's quality, in the order of images (ours): pixel checks, repeats in the visit, overlap with the previous photo; distance and coverage come with GET /api/app/v1/photo_quality/ once recognised" }),
});

export const ReportItem = Type.Object({
  id: Type.String(),
  status: Type.Union([Type.Literal('NOT_READY'), Type.Literal('READY'), Type.Literal('ERROR')]),
  report_type: Type.Unsafe<ReportType>({ type: 'string', enum: [...REPORT_TYPES] }),
  created_date: Type.String(),
  updated_date: Type.String(),
  visit: Type.String(),
  scene: Type.String(),
  previous_report: Nullable(Type.String()),
  json: Type.Unknown({ description: 'The report body once READY (see docs/ARCHITECTURE.md, "Report bodies")' }),
  error: Nullable(Type.String()),
});
export const ReportListQuery = Type.Object({
  visit: Type.Optional(Type.String({ maxLength: 255 })),
  scene: Type.Optional(Type.String({ maxLength: 255 })),
  report_type: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(Type.String({ maxLength: 16 })),
});
export const ForceUpdateBody = Type.Object({ reports: Type.Array(Id, { minItems: 1, maxItems: 100 }) });
export type ForceUpdateBody = Static<typeof ForceUpdateBody>;
export const ForceUpdateResult = Type.Object({ reports: Type.Array(Type.String()) });

export const RecognitionErrorBody = Type.Object({
  sku_gid: Id,
  scene: Id,
  message: Type.Optional(Type.String({ maxLength: 10_000 })),
  images: Type.Optional(Type.Array(Id, { maxItems: 20 })),
});
export type RecognitionErrorBody = Static<typeof RecognitionErrorBody>;
export const OosReasonBody = Type.Object({
  sku_gid: Id,
  scene: Id,
  reason: Type.Optional(Type.String({ maxLength: 255 })),
  message: Type.Optional(Type.String({ maxLength: 10_000 })),
  images: Type.Optional(Type.Array(Id, { maxItems: 20 })),
});
export type OosReasonBody = Static<typeof OosReasonBody>;
export const SceneMessageItem = Type.Object({
  id: Type.String(),
  sku_gid: Type.String(),
  scene: Type.String(),
  message: Nullable(Type.String()),
  reason: Type.Optional(Nullable(Type.String())),
  images: Type.Array(Type.String()),
  created_date: Type.String(),
});

export const WebhookDeliveryItem = Type.Object({
  id: Type.String(),
  scene: Type.String(),
  report: Type.String(),
  url: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  next_attempt_at: Nullable(Type.String()),
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  delivered_at: Nullable(Type.String()),
  created_date: Type.String(),
});
export const WebhookDeliveryQuery = Type.Object({
  status: Type.Optional(Type.String({ maxLength: 16 })),
  scene: Type.Optional(Type.String({ maxLength: 255 })),
  report: Type.Optional(Type.String({ maxLength: 255 })),
});
export const WebhookSecret = Type.Object({
  secret: Type.String({ description: 'HMAC-SHA256 key of the X-Shelf-Audit-Signature header' }),
  header: Type.String(),
  algorithm: Type.String(),
});

export const PhotoOverlapBody = Type.Object(
  {
    previous: Ref,
    next: Ref,
  },
  { description: 'Two uploads: the photo taken before and the one just added to the same bay' },
);

export const PhotoOverlapAnswer = Type.Object({
  joined: Type.Boolean({ description: 'the new photo registers onto the one before, as the bay join would find it' }),
  overlap: Nullable(Type.Number({ description: "share of the new photo's area that overlaps the one before" })),
  reason: Type.Union([Type.Literal('no_features'), Type.Literal('no_overlap'), Type.Literal('wild_transform'), Type.Literal('boxes_disagree'), Type.Literal('other_part'), Type.Null()], { description: 'why not joined (null when joined)' }),
  message: Type.String({ description: 'for the auditor, in words' }),
});
