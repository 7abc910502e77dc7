// Row types of recognition's tables (migration 0010-recognition). Kept beside the recognition code and
// joined onto the core schema with `withTables`, so the core schema file stays the server's own.
import type { Generated, Kysely, Transaction } from 'kysely';
import type { Database } from '../../storage/schema.js';

interface Keyed {
  data_id: Generated<number>;
  id: string;
}
interface Stamped {
  created_at: string;
  updated_at: string;
}

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
  /** JSON array of StoredBox (recognition/review.ts). */
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

export interface SettingTable {
  name: string;
  value: string;
}

export type RecognitionTables = {
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
};

export type RecognitionDatabase = Database & RecognitionTables;
export type RecDb = Kysely<RecognitionDatabase>;

export function rec(db: Kysely<Database>): RecDb {
  return db.withTables<RecognitionTables>();
}

export function recTrx(trx: Transaction<Database>): Transaction<RecognitionDatabase> {
  return trx.withTables<RecognitionTables>();
}
