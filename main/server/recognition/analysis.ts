// What recognition finds in a scene's photos: every detected product with its SKU (or null when
// unknown), shelf and position. Stored on the scene once computed, so reports (and a restarted job)
// are built from it without detecting again. A scene of several photos also keeps how they were
// joined into one bay (recognition/bay/): the reports count the bay's facings once (bay/facings.ts).
import type { BayRegistration } from './bay/register.js';

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

export interface ImageAnalysis {
  image: string;
  width: number;
  height: number;
  products: ProductFound[];
  shelves: { x1: number; y1: number; x2: number; y2: number }[];
}

export interface StageTimes {
  decode: number;
  detect: number;
  identify: number;
  /** Joining the photos into a bay (scenes of several photos). */
  bay?: number;
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
