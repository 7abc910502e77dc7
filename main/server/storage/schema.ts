// Row types of every table, as Kysely sees them. Booleans are integers 0/1 and JSON is text so that
// the same rows round-trip through SQLite and PostgreSQL; timestamps are ISO-8601 UTC strings, which
// sort and compare correctly as text.
import type { Generated } from 'kysely';

interface Keyed {
  /** Per-instance integer key (SQLite rowid alias): the Data API's `id`. Never synced. */
  data_id: Generated<number>;
  /** The record's global id: client-chosen or uuidv7. */
  id: string;
}

interface Stamped {
  created_at: string;
  updated_at: string;
}

export interface CatalogTable extends Keyed, Stamped {
  name: string;
}

export interface SkuTable extends Keyed, Stamped {
  cid: string | null;
  ean13: string | null;
  name: string;
  brand_id: string | null;
  category_id: string | null;
  manufacturer_id: string | null;
  size_x_mm: number | null;
  size_y_mm: number | null;
  size_z_mm: number | null;
  /** JSON object of attribute name -> string value. */
  attributes: string | null;
  image: string | null;
}

export interface DisplayTable extends Keyed, Stamped {
  name: string;
  /** The chosen planogram; null: the newest planogram tied to the display (domain/displays.ts). */
  planogram_id: string | null;
  /** The chosen must-have list; null: the newest one tied to the display. */
  mhl_id: string | null;
}

export interface PlanogramTable extends Keyed, Stamped {
  name: string;
  display_id: string | null;
}

export interface MhlTable extends Keyed, Stamped {
  name: string;
  display_id: string | null;
}

export interface MhlRecordTable extends Keyed, Stamped {
  name: string | null;
  mhl_id: string;
  sku_id: string;
  sku1_id: string | null;
  sku2_id: string | null;
  sku3_id: string | null;
  sku4_id: string | null;
  sku5_id: string | null;
  sku6_id: string | null;
}

export interface PlanogramRecordTable extends Keyed, Stamped {
  planogram_id: string;
  sku_id: string;
  rack_index: number;
  shelf_index: number;
  product_index: number;
  facing_x: number;
  facing_y: number;
  width: number | null;
  height: number | null;
}

export interface VisitTable extends Keyed, Stamped {
  name: string | null;
  shop: string | null;
  agent: string | null;
  started_date: string | null;
  task: string | null;
  latitude: number | null;
  longitude: number | null;
  shop_name: string | null;
  shop_area: string | null;
  gps_shop: string | null;
  images: string | null;
  current_agent_name: string | null;
  current_agent_route: string | null;
  moderation: string | null;
  results: string | null;
  helpdesk: string | null;
  is_new: number;
  is_closed: number;
  closed_at: string | null;
}

/** An agent (merchandiser), created and renamed by POST /recognize's metadata (migration 0011-agents). */
export interface AgentTable extends Keyed, Stamped {
  /** null until a request names the agent. */
  name: string | null;
}

export interface TaskTable extends Keyed, Stamped {
  name: string;
  short_description: string | null;
  long_description: string | null;
  is_enabled: number;
  is_required: number;
}

export interface KpiTable extends Keyed, Stamped {
  cid: string | null;
  name: string;
  units: string | null;
}

export interface KpiValueTable extends Keyed, Stamped {
  visit_id: string;
  kpi_id: string;
  category_id: string | null;
  value: number;
}

export interface ImportTable extends Keyed {
  finished_at: string;
  source: string | null;
  summary: string;
}

export interface ApiKeyTable extends Keyed {
  name: string | null;
  /** Listed in clear: the `sa_...` part of a key before its dot, or a random `key_...` for keys of another form. */
  public_id: string;
  /** SHA-256 hex of the whole key; the key itself is never stored. */
  hash: string;
  role: 'admin' | 'integration' | 'read-only';
  /** The key that created this one through the API; null for keys made by the CLI, `serve --api-key`, the app. */
  created_by: string | null;
  /** The first key of the `created_by` chain (this key's id when it has no creator): the rate-limit bucket. */
  root_key_id: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** One row: moved by triggers whenever api_keys changes (migration 0020, storage/change-stamp.ts). */
export interface ApiKeyVersionTable {
  id: number;
  version: string | number;
}

/** A followed table's version, moved by triggers on PostgreSQL (migration 0027, storage/change-stamp.ts). */
export interface TableVersionsTable {
  name: string;
  version: string | number;
}

export interface OutboxTable {
  seq: Generated<number>;
  entity: string;
  record_id: string;
  op: 'upsert' | 'delete';
  created_at: string;
  /** PostgreSQL: id of the transaction that wrote the row (0 on SQLite). Migration 0014-sync. */
  txid: Generated<number | string>;
  /** On the central: the device whose push wrote the row (null for the central's own writes). */
  device_id: Generated<string | null>;
}

/** A laptop enrolled at the central (migration 0014-sync). */
export interface DeviceTable extends Keyed {
  name: string;
  role: 'auditor' | 'supervisor';
  prefix: string;
  /** SHA-256 hex of the device key; the key itself is never stored. */
  hash: string;
  created_at: string;
  revoked_at: string | null;
  last_seen_at: string | null;
  /** The device's highest change number applied on the central (bigint: a string on PostgreSQL). */
  last_change: Generated<number | string>;
}

/** Central: which device pushed (and so owns) a record. */
export interface SyncOwnerTable {
  entity: string;
  record_id: string;
  device_id: string;
}

/** A pushed change the central refused for good; kept on both sides. */
export interface SyncRejectionTable extends Keyed {
  /** On the central: the pushing device; null in a laptop's own copy. */
  device_id: string | null;
  change_number: number | string;
  entity: string;
  record_id: string;
  reason: string;
  created_at: string;
}

/** A laptop's sync settings and cursors (name -> value). */
export interface SyncSettingTable {
  name: string;
  value: string;
}

/** A photo file the central holds ('sent', 'received') or that is going up ('uploading'), migration 0019. */
export interface SyncPhotoTable {
  file: string;
  state: 'uploading' | 'sent' | 'received';
  upload_url: string | null;
  updated_at: string;
}

// Recognition's tables (migrations 0010-recognition, 0011-agents, 0018-review).
export interface UploadTable extends Keyed, Stamped {
  sha256: string;
  /** Path relative to DATA_DIR/uploads. */
  file: string;
  mime: string;
  bytes: number;
  width: number;
  height: number;
  /** Random capability secret in the image's URL (an <img> cannot send an Authorization header). */
  token: string;
  source_url: string | null;
}

export interface SkuImageTable extends Keyed, Stamped {
  sku_id: string;
  upload_id: string;
  /** JSON {x, y, w, h} in the upload's displayed pixels, or null for the whole image. */
  crop: string | null;
  descriptor: Uint8Array | null;
  /** 'upload': added by hand; 'review': learnt from a supervisor's corrected box (scenes/learn.ts). */
  source: 'upload' | 'review';
  /** The saved correction a 'review' reference came from; null for the others. */
  correction_id: string | null;
}

export interface SceneTable extends Keyed, Stamped {
  request_id: string;
  visit_id: string;
  display_id: string | null;
  /** JSON array of upload ids. */
  images: string;
  /** JSON of the /recognize options (hints, country, chain, metadata, datetime). */
  options: string;
  webhook: string | null;
  /** The agent who sent the scene (metadata.agent_id; migration 0011-agents), or null. */
  agent_id: string | null;
  /** JSON of the per-image detections and identifications, once computed. */
  analysis: string | null;
}

export type ReportStatus = 'NOT_READY' | 'READY' | 'ERROR';

export interface ReportTable extends Keyed, Stamped {
  scene_id: string;
  visit_id: string;
  report_type: string;
  status: ReportStatus;
  json: string | null;
  error: string | null;
  /** Id of the latest earlier report of the same type on the same display, fixed at creation. */
  previous_report: string | null;
}

export type JobStatus = 'queued' | 'running' | 'done' | 'failed';

export interface RecognitionJobTable extends Keyed, Stamped {
  scene_id: string;
  /** JSON array of the report ids the job (re)builds. */
  reports: string;
  status: JobStatus;
  attempts: number;
  lease_owner: string | null;
  lease_until: string | null;
  last_error: string | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveryTable extends Keyed, Stamped {
  scene_id: string;
  report_id: string;
  url: string;
  /** The exact bytes POSTed (and signed). */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
}

export interface MessageTable extends Keyed, Stamped {
  sku_id: string;
  scene_id: string;
  message: string | null;
  images: string;
}

export interface OosReasonTable extends MessageTable {
  reason: string | null;
}

/** The reviewed boxes of one photo of a scene (migration 0018-review). */
export interface SceneAnnotationTable extends Keyed, Stamped {
  scene_id: string;
  image_id: string;
  /** Starts at 1 with the first saved review; each save adds 1 (optimistic concurrency). */
  version: number;
  /** JSON array of StoredBox (scenes/review.ts). */
  boxes: string;
  /** API key id of the last reviewer. */
  reviewer: string | null;
}

/** Audit of one saved correction: who, when (created_at), the boxes before and after. */
export interface AnnotationCorrectionTable extends Keyed, Stamped {
  scene_id: string;
  image_id: string;
  /** The version this correction produced. */
  version: number;
  reviewer: string | null;
  before: string;
  after: string;
}

/** One price of the price list (migration 0028): an SKU's price in a currency, over days, everywhere or in one shop. */
export interface PriceListTable extends Keyed, Stamped {
  sku_id: string;
  /** Hundredths of the currency's unit: 1.99 is 199 (exact, never a float). */
  price_cents: number;
  /** ISO 4217 code. */
  currency: string;
  /** The visits' `shop` it applies to; null: every shop without a price of its own. */
  shop: string | null;
  /** First and last day (YYYY-MM-DD, both included); valid_to null: open-ended. */
  valid_from: string;
  valid_to: string | null;
}

/** A supervisor's corrections of one photo's price tags (migration 0029, scenes/price-review.ts). */
export interface PriceTagReviewTable extends Keyed, Stamped {
  scene_id: string;
  image_id: string;
  /** Starts at 1 with the first save; each save adds 1 (optimistic concurrency). */
  version: number;
  /** JSON array of TagCorrection (scenes/price-review.ts). */
  corrections: string;
  reviewer: string | null;
}

/** An upload's pixel measures (JSON of domain/photo-checks.ts PixelMeasures), migration 0021. Local. */
export interface PhotoMeasuresTable {
  upload_id: string;
  measures: string;
  created_at: string;
}

/** A photo-quality threshold (name -> value), migration 0021. Local. */
export interface PhotoQualitySettingTable {
  name: string;
  value: number;
}

/** A stored photo of a visit with its pixel measures (null until measured); migration 0030. Local. */
export interface OverviewPhotoTable {
  visit_id: string;
  upload_id: string;
  width: number | null;
  height: number | null;
  sharpness: number | null;
  brightness: number | null;
  clipped: number | null;
  glare: number | null;
  tilt: number | null;
  convergence: number | null;
}

/** The overview's figures of one visit (migration 0030), projected when the visit is written. Local. */
export interface OverviewVisitTable {
  visit_id: string;
  name: string | null;
  shop: string | null;
  shop_name: string | null;
  agent: string | null;
  started_date: string | null;
  review: string;
  osa: number | null;
  planogram: number | null;
  facings: number | null;
  /** The visit's price compliance (%), once its price tags are read against a price list. */
  price: number | null;
  photos: number;
  unknown_facings: number;
  retaken: number;
  flagged: number;
  /** Photos the bay's registration left not joined. */
  unjoined: number;
  missing: number;
}

/** A display a visit has scenes of, with their unknown facings. Local. */
export interface OverviewVisitDisplayTable {
  visit_id: string;
  display_id: string;
  started_date: string | null;
  unknown_facings: number;
}

/** One product of a visit on one display ('*': all its scenes): facings, on the shelf, a must-have missing. Local. */
export interface OverviewVisitProductTable {
  visit_id: string;
  display_id: string;
  sku_id: string;
  brand_id: string | null;
  category_id: string | null;
  shop: string | null;
  started_date: string | null;
  facings: number;
  present: number;
  missing: number;
}

/** A category a visit has products of, on one display ('*': all its scenes). Local. */
export interface OverviewVisitCategoryTable {
  visit_id: string;
  display_id: string;
  category_id: string;
  started_date: string | null;
}

/** A visit's facings on one display ('*': all), of one category ('*': any, '' none) and brand ('' none). Local. */
export interface OverviewVisitShareTable {
  visit_id: string;
  display_id: string;
  category_id: string;
  brand_id: string;
  started_date: string | null;
  facings: number;
}

/** A visit's facings of one brand ('' for products of none). Local. */
export interface OverviewVisitBrandTable {
  visit_id: string;
  brand_id: string;
  facings: number;
}

export interface SettingTable {
  name: string;
  value: string;
}

export interface Database {
  brands: CatalogTable;
  categories: CatalogTable;
  manufacturers: CatalogTable;
  skus: SkuTable;
  displays: DisplayTable;
  planograms: PlanogramTable;
  mhls: MhlTable;
  mhl_records: MhlRecordTable;
  planogram_records: PlanogramRecordTable;
  visits: VisitTable;
  agents: AgentTable;
  tasks: TaskTable;
  kpis: KpiTable;
  kpi_values: KpiValueTable;
  imports: ImportTable;
  api_keys: ApiKeyTable;
  api_key_version: ApiKeyVersionTable;
  table_versions: TableVersionsTable;
  outbox: OutboxTable;
  devices: DeviceTable;
  sync_owners: SyncOwnerTable;
  sync_rejections: SyncRejectionTable;
  sync_settings: SyncSettingTable;
  sync_photos: SyncPhotoTable;
  photo_measures: PhotoMeasuresTable;
  photo_quality_settings: PhotoQualitySettingTable;
  uploads: UploadTable;
  sku_images: SkuImageTable;
  scenes: SceneTable;
  reports: ReportTable;
  recognition_jobs: RecognitionJobTable;
  webhook_deliveries: WebhookDeliveryTable;
  recognition_errors: MessageTable;
  oos_reasons: OosReasonTable;
  recognition_settings: SettingTable;
  scene_annotations: SceneAnnotationTable;
  annotation_corrections: AnnotationCorrectionTable;
  price_list: PriceListTable;
  price_tag_reviews: PriceTagReviewTable;
  overview_photos: OverviewPhotoTable;
  overview_visits: OverviewVisitTable;
  overview_visit_displays: OverviewVisitDisplayTable;
  overview_visit_products: OverviewVisitProductTable;
  overview_visit_categories: OverviewVisitCategoryTable;
  overview_visit_brands: OverviewVisitBrandTable;
  overview_visit_shares: OverviewVisitShareTable;
  overview_state: SettingTable;
}

export type CatalogTableName = 'brands' | 'categories' | 'manufacturers';
