// The recognition pipeline for one scene: decode each photo once, detect products with the shipped
// detector, identify each product against the catalog's references, and place products on shelves.
// Plain functions over injected parts (detector, identifier), so tests and benchmarks call them too.
import sharp from 'sharp';
import type { Detector } from './detector/index.js';
import type { ImageAnalysis, SceneAnalysis } from './analysis.js';
import { describeProduct } from './identification/describe.js';
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
  const identified = await identifyBoxes(raw, detection.boxes, parts.identifier, parts.checkpoint);
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

export interface IdentifiedBox extends Box {
  score: number;
  sku_id: string | null;
  sku_score: number;
}

/** Identifies the product in each box of a decoded photo (SKU id, or null when unknown). */
export async function identifyBoxes(
  raw: RawPixels,
  boxes: readonly (Box & { score: number })[],
  identifier: Identifier,
  checkpoint?: () => Promise<void>,
): Promise<IdentifiedBox[]> {
  const out: IdentifiedBox[] = [];
  for (const b of boxes) {
    await checkpoint?.();
    let skuId: string | null = null;
    let skuScore = 0;
    if (identifier.size > 0) {
      const result = await identifier.identify(await describeProduct(raw, { x: b.x1, y: b.y1, w: b.x2 - b.x1, h: b.y2 - b.y1 }));
      skuId = result.skuId;
      skuScore = result.score;
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
