// What recognition finds in a scene's photos: every detected product with its SKU (or null when
// unknown), shelf and position. Stored on the scene once computed, so reports (and a restarted job)
// are built from it without detecting again. A scene of several photos also keeps how they were
// joined into one bay (recognition/bay/): the reports count the bay's facings once (bay/facings.ts).
import type { BayRegistration } from './bay/register.js';
import type { TagReading } from './prices/price-text.js';

export interface ProductFound {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  /** Detector confidence. */
  score: number;
  sku_id: string | null;
  /** Identification confidence, 0..1. */
  sku_score: number;
  /** The identifier's best candidate SKUs, best first (absent in analyses stored before they were kept). */
  suggestions?: { sku_id: string; score: number }[];
  rack_index: number;
  shelf_index: number;
  /** Left to right within its shelf. */
  position: number;
  /** Set by a reviewer (laid over the model's analysis, never stored in it): it decides a merged facing's SKU. */
  reviewed?: boolean;
}

/** A price tag found on the photo (recognition/prices/), read and linked to the facing it prices. */
export interface PriceTagFound {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  /** Tag detector confidence. */
  score: number;
  /** The lines read on the tag (OCR), top to bottom, joined by newlines; '' when nothing was read. */
  text: string;
  /** What the text says: the shelf price, or unreadable with the reason (never a guessed price). */
  reading: TagReading;
  /** Confidence of the text read, 0..1. */
  read_score: number;
  /** EAN-13/EAN-8 printed on the tag as a barcode, when one was decoded. */
  ean: string | null;
  /** Index in this image's `products` of the facing the tag prices, or null when it prices none. */
  product_index: number | null;
  /** The SKU the tag is linked to (the linked facing's, or the SKU whose EAN it prints), null when none. */
  sku_id: string | null;
  shelf_index: number | null;
  /** Set by a reviewer's correction of its price or link (laid over the analysis, never stored in it: scenes/price-review.ts). */
  reviewed?: boolean;
}

export interface ImageAnalysis {
  image: string;
  width: number;
  height: number;
  products: ProductFound[];
  shelves: { x1: number; y1: number; x2: number; y2: number }[];
  /** Price tags; absent in analyses stored before prices were read. */
  price_tags?: PriceTagFound[];
}

export interface StageTimes {
  decode: number;
  detect: number;
  identify: number;
  /** Joining the photos into a bay (scenes of several photos). */
  bay?: number;
  /** Finding, reading and linking price tags. */
  prices?: number;
}

export interface SceneAnalysis {
  images: ImageAnalysis[];
  ms: StageTimes;
  /** How the photos were joined into one bay; absent for one photo and for analyses stored before bays. */
  bay?: BayRegistration;
}

export function allProducts(a: SceneAnalysis): ProductFound[] {
  return a.images.flatMap((i) => i.products);
}
