// The recognition pipeline for one scene: decode each photo once, detect products with the shipped
// detector, identify each product against the catalog's references, and place products on shelves.
// Plain functions over injected parts (detector, identifier), so tests and benchmarks call them too.
import sharp from 'sharp';
import type { Detector } from './detector/index.js';
import type { ImageAnalysis, SceneAnalysis } from './analysis.js';
import { describeQuery } from './identification/describe.js';
import { globalSimilarity } from './identification/global-descriptor.js';
import type { Identifier } from './identification/identifier.js';
import type { RawPixels } from './identification/image-input.js';
import { groupIntoShelves, type Box } from './shelves.js';

export interface PipelineParts {
  detector: Detector;
  identifier: Identifier;
  /** Called between products so a long job can renew its lease or notice a shutdown. */
  checkpoint?: () => Promise<void>;
}

export interface SceneImage {
  id: string;
  path: string;
}

export async function analyzeImage(image: SceneImage, rackIndex: number, parts: PipelineParts, ms: SceneAnalysis['ms']): Promise<ImageAnalysis> {
  let t = performance.now();
  const { data, info } = await sharp(image.path, { failOn: 'error', limitInputPixels: false })
    .rotate()
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { data, width: info.width, height: info.height, channels: info.channels as 3 };
  ms.decode += performance.now() - t;

  t = performance.now();
  const detection = await parts.detector.detect(raw);
  ms.detect += performance.now() - t;

  t = performance.now();
  const identified = await identifyBoxes(raw, dropNestedBoxes(detection.boxes), parts.identifier, parts.checkpoint);
  ms.identify += performance.now() - t;

  const layout = groupIntoShelves(identified);
  return {
    image: image.id,
    width: info.width,
    height: info.height,
    products: layout.placed.map((p) => ({ ...p.item, rack_index: rackIndex, shelf_index: p.shelf, position: p.position })),
    shelves: layout.shelves,
  };
}

// A facing never lies mostly inside another one: such a box is a part of a product (a label, the
// lower half of a bottle) found next to the whole, which IoU-based suppression keeps (IoU ~0.5).
const NESTED_FRACTION = 0.7;

/** Drops boxes mostly covered by a better-scoring box; keeps the order of the rest. */
export function dropNestedBoxes<T extends Box & { score: number }>(boxes: readonly T[]): T[] {
  const kept: T[] = [];
  for (const b of [...boxes].sort((a, c) => c.score - a.score)) {
    const area = (b.x2 - b.x1) * (b.y2 - b.y1);
    const nested = kept.some((k) => {
      const w = Math.min(k.x2, b.x2) - Math.max(k.x1, b.x1);
      const h = Math.min(k.y2, b.y2) - Math.max(k.y1, b.y1);
      return w > 0 && h > 0 && (w * h) / area >= NESTED_FRACTION;
    });
    if (!nested) kept.push(b);
  }
  return boxes.filter((b) => kept.includes(b));
}

export interface IdentifiedBox extends Box {
  score: number;
  sku_id: string | null;
  sku_score: number;
}

// Repeated facings of one product look alike: a box this close in appearance (and size) to one
// already identified takes its answer without another local-feature verification.
const REPEAT_SIMILARITY = 0.97;
const REPEAT_SIZE_RATIO = 0.85;

/** Identifies the product in each box of a decoded photo (SKU id, or null when unknown). */
export async function identifyBoxes(
  raw: RawPixels,
  boxes: readonly (Box & { score: number })[],
  identifier: Identifier,
  checkpoint?: () => Promise<void>,
): Promise<IdentifiedBox[]> {
  const out: IdentifiedBox[] = [];
  const seen: { global: Float32Array; w: number; h: number; skuId: string | null; score: number }[] = [];
  const close = (a: number, b: number) => Math.min(a, b) / Math.max(a, b) >= REPEAT_SIZE_RATIO;
  for (const b of boxes) {
    await checkpoint?.();
    let skuId: string | null = null;
    let skuScore = 0;
    if (identifier.size > 0) {
      const w = b.x2 - b.x1;
      const h = b.y2 - b.y1;
      const query = await describeQuery(raw, { x: b.x1, y: b.y1, w, h });
      const twin = seen.find((s) => close(s.w, w) && close(s.h, h) && globalSimilarity(s.global, query.global) >= REPEAT_SIMILARITY);
      if (twin) {
        skuId = twin.skuId;
        skuScore = twin.score;
      } else {
        const result = await identifier.identify(query);
        skuId = result.skuId;
        skuScore = result.score;
        seen.push({ global: query.global, w, h, skuId, score: skuScore });
      }
    }
    out.push({ x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2, score: b.score, sku_id: skuId, sku_score: skuScore });
  }
  return out;
}

/** Each photo of a scene is taken as one rack, left to right in the order given. */
export async function analyzeScene(images: readonly SceneImage[], parts: PipelineParts): Promise<SceneAnalysis> {
  const ms = { decode: 0, detect: 0, identify: 0 };
  const out: ImageAnalysis[] = [];
  for (const [i, image] of images.entries()) out.push(await analyzeImage(image, i, parts, ms));
  return { images: out, ms: { decode: Math.round(ms.decode), detect: Math.round(ms.detect), identify: Math.round(ms.identify) } };
}
