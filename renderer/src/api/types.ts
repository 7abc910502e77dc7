// Wire shapes of the HTTP interface the renderer reads and writes (docs/ARCHITECTURE.md and
// /work/shared/spec). Ids are strings in v1.5, integers in the Data API.

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export interface NamedRecord {
  id: string;
  name: string;
}

export type Brand = NamedRecord;
export type Category = NamedRecord;
export type Manufacturer = NamedRecord;

export interface Sku {
  id: string;
  cid: string | null;
  ean13: string | null;
  image?: string | null;
  name: string;
  brand: string | null;
  category: string | null;
  manufacturer: string | null;
  size_x_mm: number | null;
  size_y_mm: number | null;
  size_z_mm: number | null;
  attributes: Record<string, string> | null;
}

export interface Crop {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface SkuImage {
  id: string;
  sku: string;
  upload: string;
  url: string;
  crop: Crop | null;
  created_date: string;
}

export interface Upload {
  id: string;
  url: string;
  width: number;
  height: number;
  created_date: string;
  duplicate?: boolean;
}

export interface Display {
  id: string;
  name: string;
  planogram: string | null;
  musthavelist: string | null;
}

export interface Planogram {
  id: string;
  name: string;
  display: string | null;
}

export interface PlanogramRecord {
  id: string;
  rack_index: number;
  shelf_index: number;
  product_index: number;
  facing_x: number;
  facing_y: number;
  width: number | null;
  height: number | null;
  planogram: string;
  sku: string;
}

export interface Mhl {
  id: string;
  name: string;
  display: string | null;
}

export const MHL_ALTERNATIVES = ['sku1', 'sku2', 'sku3', 'sku4', 'sku5', 'sku6'] as const;
export type MhlAlternative = (typeof MHL_ALTERNATIVES)[number];

export type MhlRecord = {
  id: string;
  name: string;
  musthavelist: string;
  sku: string | null;
} & Partial<Record<MhlAlternative, string | null>>;

export interface Visit {
  id: string;
  shop: string | null;
  agent: string | null;
  started_date: string | null;
  task?: string | null;
  shop_name?: string | null;
  images?: unknown[];
}

export interface DataVisit {
  id: number;
  cid: string;
  name: string;
  created_at: string;
  updated_at: string;
  is_new?: boolean;
  agent_id?: string | null;
  store_id?: string | null;
  kpi_values?: KpiValue[];
  scenes?: Array<{
    id: string;
    agent_id?: string | null;
    images?: Array<{ id?: string; original_url: string | null }>;
    facing_counts?: unknown;
  }>;
}

export interface Kpi {
  id: number;
  cid: string | null;
  name: string;
  units: string | null;
}

export interface KpiValue {
  kpi: number | string;
  value: number | string | null;
  category?: number | string | null;
  name?: string;
  units?: string | null;
}

export const REPORT_TYPES = [
  'FACING_COUNT',
  'PLANOGRAM_COMPLIANCE',
  'MHL_COMPLIANCE',
  'PANORAMA',
  'REALOGRAM',
  'SHARE_OF_SPACE',
] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

export type ReportStatus = 'NOT_READY' | 'READY' | 'ERROR';

export interface Report<J = unknown> {
  id: string;
  status: ReportStatus;
  report_type: ReportType;
  created_date: string;
  updated_date: string;
  visit: string | null;
  scene?: string | null;
  previous_report: string | null;
  json: J | null;
  error: string | null;
}

export interface RecognizeRequest {
  images: string[];
  display?: string;
  report_types: ReportType[];
  visit?: string;
  datetime?: string;
  metadata?: { agent_id?: string; agent_name?: string };
}

export interface RecognizeResponse {
  id: string;
  images: string[];
  display: string | null;
  scene: string;
  visit?: string;
  reports: Partial<Record<ReportType, string>>;
}

// Report bodies: the server's own types (main/server/recognition/reports/bodies.ts), so the screens read
// exactly what the report builders write.
import type {
  PanoramaBody,
  PlanogramAction,
  PlanogramPosition,
  RealogramAnnotation,
  RealogramImage,
} from '../../../main/server/recognition/reports/bodies.js';

export type {
  FacingCount,
  MhlCompliance,
  PlanogramCompliance,
  PositionStatus,
  RealogramImage,
  ShareOfSpace,
} from '../../../main/server/recognition/reports/bodies.js';
export type CompliancePosition = PlanogramPosition;
export type ComplianceAction = PlanogramAction;
export type Annotation = RealogramAnnotation;
export type Panorama = PanoramaBody;
export type Realogram = RealogramImage[];

export interface ApiKeyRecord {
  id: string;
  name?: string | null;
  prefix?: string | null;
  created_date?: string;
  last_used_date?: string | null;
  revoked_date?: string | null;
  /** Present only in the answer to the create call: the key is shown once. */
  key?: string;
}

export interface AppInfo {
  app_version?: string;
  model_version?: string;
  embedder_version?: string | null;
  data_dir?: string;
  [field: string]: unknown;
}
