// The bodies of READY reports (a report's `json`), in one place: the report builders produce them and
// the renderer reads them (it imports these types), so the two cannot drift apart. Plain types only:
// this module must stay importable from the browser build. docs/ARCHITECTURE.md describes them.

/** FACING_COUNT: facings per SKU, most first; unidentified products are one `sku_id: null` item at the end. */
export type FacingCount = { sku_id: string | null; count: number }[];

export type PositionStatus = 'ok' | 'missing' | 'wrong_sku' | 'fewer_facings' | 'extra';

export interface PlanogramPosition {
  /** Null for products found where the planogram has none (`extra`). */
  planogram_record: string | null;
  rack_index: number;
  shelf_index: number;
  product_index: number | null;
  sku_id: string | null;
  expected_facings: number;
  found_facings: number;
  found_sku_ids: (string | null)[];
  status: PositionStatus;
}

export interface PlanogramAction {
  type: 'add' | 'remove' | 'replace' | 'add_facings';
  sku_id: string | null;
  rack_index: number;
  shelf_index: number;
  product_index: number | null;
  count: number;
  message: string;
}

/** PLANOGRAM_COMPLIANCE: compliance = correctly placed faces / expected faces. */
export interface PlanogramCompliance {
  planogram: string | null;
  display: string | null;
  compliance: number;
  expected_faces: number;
  correct_faces: number;
  positions: PlanogramPosition[];
  extra: { sku_id: string | null; count: number }[];
  actions: PlanogramAction[];
}

/** MHL_COMPLIANCE: a record is compliant when its SKU or one of sku1..sku6 was found. */
export interface MhlCompliance {
  musthavelist: string | null;
  compliance: number;
  records: { mhl_record_id: string; compliant: boolean; found_sku_id: string | null }[];
}

/** One product box of a REALOGRAM image: x, y are the box centre, in the photo's pixels as displayed. */
export interface RealogramAnnotation {
  sku_id: string | null;
  name: string | null;
  x: number;
  y: number;
  w: number;
  h: number;
  score: number;
  sku_score: number;
  shelf_index: number;
}

/** REALOGRAM: one item per photo. */
export interface RealogramImage {
  image: string;
  width: number;
  height: number;
  annotations: RealogramAnnotation[];
  shelf_annotations: { x1: number; y1: number; x2: number; y2: number }[];
}

/** SHARE_OF_SPACE: each SKU's share of the facings and of the shelf width. */
export type ShareOfSpace = { sku_id: string | null; share_of_count: number; share_of_space: number }[];

/** PANORAMA: the stitched image, stored as an upload. `stitched` is false when photos could not be matched. */
export interface PanoramaBody {
  upload: string;
  url: string;
  width: number;
  height: number;
  images: string[];
  stitched: boolean;
}
