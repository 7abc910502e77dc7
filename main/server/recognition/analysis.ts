// What recognition finds in a scene's photos: every detected product with its SKU (or null when
// unknown), shelf and position. Stored on the scene once computed, so reports (and a restarted job)
// are built from it without detecting again.

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
}

export interface SceneAnalysis {
  images: ImageAnalysis[];
  ms: StageTimes;
}

export function allProducts(a: SceneAnalysis): ProductFound[] {
  return a.images.flatMap((i) => i.products);
}
