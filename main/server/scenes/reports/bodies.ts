// The bodies of READY reports (a report's `json`), in one place: the report builders produce them and
// the renderer reads them (it imports these types), so the two cannot drift apart. Plain types only:
// this module must stay importable from the browser build. docs/ARCHITECTURE.md describes them.

/** Why a photo of a scene was not joined to the bay (recognition/bay/register.ts). */
export type NotJoinedReason = 'no_features' | 'no_overlap' | 'wild_transform' | 'boxes_disagree' | 'other_part';

/** How a scene of several photos was joined into one bay; absent for one photo. */
export interface BayBody {
  /** The bay frame's size in pixels. */
  width: number;
  height: number;
  /** Photos joined into the bay, their facings counted once. */
  joined: string[];
  /** Photos counted as racks of their own, with the reason and the words for the auditor. */
  not_joined: { image: string; reason: NotJoinedReason; message: string }[];
}

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
  bay?: BayBody;
  extra: { sku_id: string | null; count: number }[];
  actions: PlanogramAction[];
}

/** MHL_COMPLIANCE: a record is compliant when its SKU or one of sku1..sku6 was found. */
export interface MhlCompliance {
  musthavelist: string | null;
  bay?: BayBody;
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
  /** Photos joined into a bay: the merged facing this box is a view of (index into the bay's facings, left to right by shelf)... */
  facing?: number;
  /**
   * ...whether this view stands for it (the one counted), and the facing's box in bay pixels (x, y the centre).
   * False without `facing`: a box cut by its photo's edge at a place another photo sees whole and found no
   * product at, counted nowhere (bay/facings.ts).
   */
  counted?: boolean;
  bay_x?: number;
  bay_y?: number;
  bay_w?: number;
  bay_h?: number;
  /** SKUs the facing's other views were identified as. */
  alternatives?: { sku_id: string; score: number }[];
}

/** REALOGRAM: one item per photo. */
export interface RealogramImage {
  image: string;
  width: number;
  height: number;
  /** Scenes of several photos: joined into the bay (rack 0) with its photo -> bay homography, or not (its rack, and why). */
  joined?: boolean;
  rack_index?: number;
  transform?: number[] | null;
  join_message?: string | null;
  annotations: RealogramAnnotation[];
  shelf_annotations: { x1: number; y1: number; x2: number; y2: number }[];
  /** Photos joined into a bay: the bay's shelves, in bay pixels. */
  bay_shelf_annotations?: { x1: number; y1: number; x2: number; y2: number }[];
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
  /** The merged facings drawn on the image (scenes joined into a bay). */
  boxes?: number;
  bay?: BayBody;
}

/** A promotion printed on a tag: N for a total price, or buy N pay M. */
export type TagPromotion = { kind: 'bundle'; quantity: number; total: string; currency: string | null } | { kind: 'multibuy'; buy: number; pay: number };

/** One price tag of a PRICE_TAGS photo: its box (photo pixels), what was read, what it prices. */
export interface PriceTagItem {
  /** The tag's index in the photo's analysis: what a review correction names. */
  index: number;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  /** Tag detector confidence. */
  score: number;
  /** The lines read, joined by newlines ('' when nothing was read). */
  text: string;
  status: 'read' | 'unreadable';
  /** The shelf price, a decimal string ("1.99"); null when unreadable (never a guessed price). */
  price: string | null;
  currency: string | null;
  /** Why it is unreadable; null when read. */
  reason: string | null;
  promotion: TagPromotion | null;
  unit_price: { price: string; currency: string | null; per: string } | null;
  /** Confidence of the text read, 0..1 (1 for a price a reviewer gave). */
  read_score: number;
  ean: string | null;
  /** The SKU the tag prices (the merged facing's in a bay), null when it prices none. */
  sku_id: string | null;
  name: string | null;
  /** The facing it prices: index in this photo's products (REALOGRAM's annotations), null when none. */
  product_index: number | null;
  shelf_index: number | null;
  /** A reviewer corrected its price or link. */
  reviewed: boolean;
  /** Photos joined into a bay: the tag's box in bay pixels (as REALOGRAM's `bay_*`, corners here). */
  bay_x1?: number;
  bay_y1?: number;
  bay_x2?: number;
  bay_y2?: number;
}

/** PRICE_TAGS: one item per photo, every tag found on it. */
export interface PriceTagsImage {
  image: string;
  width: number;
  height: number;
  tags: PriceTagItem[];
}

export type PriceStatus = 'ok' | 'wrong_price' | 'no_tag' | 'unreadable' | 'no_expected_price';

/** One SKU of the scene (its bay) in PRICE_COMPLIANCE. */
export interface PriceComplianceItem {
  sku_id: string;
  name: string | null;
  /** Its facings on the shelf (the bay's, each once); 0 for an SKU only a tag names (by its EAN). */
  facings: number;
  /** The price list's price for the visit's shop and day ("1.99"), null when it has none. */
  expected_price: string | null;
  expected_currency: string | null;
  /** The price-list record it came from. */
  price_record: string | null;
  /** The distinct prices read on its tags, in the order found. */
  found_prices: { price: string; currency: string | null }[];
  /** Its tags: photo and index in PRICE_TAGS. */
  tags: { image: string; index: number }[];
  /**
   * ok: every readable tag shows the expected price; wrong_price: one shows another; no_tag: no tag
   * prices it; unreadable: its tags could not be read; no_expected_price: the price list has none.
   */
  status: PriceStatus;
}

/** PRICE_COMPLIANCE: per SKU, expected and found prices; compliance = ok / SKUs with an expected price (null: none has one). */
export interface PriceComplianceBody {
  /** The visit's shop and day the price list was read for. */
  shop: string | null;
  day: string;
  compliance: number | null;
  /** SKUs with an expected price (the compliance's denominator), and how many are ok. */
  checked: number;
  ok: number;
  skus: PriceComplianceItem[];
  /**
   * Tags that price no known SKU: reported as such, never guessed onto one. `product_index` null: linked
   * to no facing; else the facing it prices, whose product was not identified.
   */
  unlinked_tags: { image: string; index: number; product_index: number | null; price: string | null; currency: string | null; status: 'read' | 'unreadable'; text: string }[];
  bay?: BayBody;
}
