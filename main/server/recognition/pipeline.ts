// The recognition pipeline for one scene: decode each photo once, detect products with the shipped
// detector, identify each product against the catalog's references, and place products on shelves.
// Plain functions over injected parts (detector, identifier), so tests and benchmarks call them too.
import sharp from 'sharp';
import type { Detector } from './detector/index.js';
import type { ImageAnalysis, SceneAnalysis } from './analysis.js';
import { takeCutPacks, visiblePart } from './identification/cut-by-frame.js';
import { identifyCrops } from './identification/identify-crops.js';
import { lookBelow, secondLook } from './identification/look-again.js';
import type { Identifier } from './identification/identifier.js';
import { cropRaw, type RawPixels } from './raw-pixels.js';
import type { IdentifyPool } from './identification/pool.js';
import { groupIntoShelves, type Box } from './shelves.js';
import { checkLookAlikesByText } from './text/pack-text.js';
import { registerBay, type BayHints, type BayRegistration } from './bay/register.js';
import { loadOpenCv } from './opencv.js';
import { findPrices, type PriceParts } from './prices/find-prices.js';

export interface PipelineParts {
  detector: Detector;
  identifier: Identifier;
  /** Worker threads identifying crops beside this one (this one alone when absent). */
  pool?: IdentifyPool;
  /** Called between products so a long job can renew its lease or notice a shutdown. */
  checkpoint?: () => Promise<void>;
  /** Finds, reads and links the price tags (absent: prices are not read, `price_tags` is left out). */
  prices?: PriceParts;
}

export interface SceneImage {
  id: string;
  path: string;
}

export async function analyzeImage(
  image: SceneImage,
  rackIndex: number,
  parts: PipelineParts,
  ms: SceneAnalysis['ms'],
  onDecoded?: (raw: RawPixels) => Promise<void>,
  /** A photo of a bay: unknown boxes with a clear best candidate are looked at again, wider (identification/look-again.ts). */
  ofBay = false,
): Promise<ImageAnalysis> {
  let t = performance.now();
  const { data, info } = await sharp(image.path, { failOn: 'error', limitInputPixels: false })
    .rotate()
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { data, width: info.width, height: info.height, channels: info.channels as 3 };
  ms.decode += performance.now() - t;
  if (onDecoded) await onDecoded(raw);

  t = performance.now();
  const detection = await parts.detector.detect(raw);
  ms.detect += performance.now() - t;

  t = performance.now();
  const identified = await identifyBoxes(raw, dropNestedBoxes(detection.boxes), parts.identifier, parts.checkpoint, parts.pool, ofBay);
  ms.identify += performance.now() - t;

  const layout = groupIntoShelves(identified);
  const products = layout.placed.map((p) => ({ ...p.item, rack_index: rackIndex, shelf_index: p.shelf, position: p.position }));
  const analysis: ImageAnalysis = { image: image.id, width: info.width, height: info.height, products, shelves: layout.shelves };
  if (parts.prices) {
    await parts.checkpoint?.();
    t = performance.now();
    try {
      analysis.price_tags = await findPrices(raw, products, parts.prices);
    } catch (error) {
      // Prices are read beside the products, not instead of them: a failing price stage (a model
      // that does not load) leaves `price_tags` out and the products stand.
      (parts.prices.onError ?? ((e: unknown) => console.error('price tags not read:', e)))(error);
    }
    ms.prices = (ms.prices ?? 0) + performance.now() - t;
  }
  return analysis;
}

// A facing never lies mostly inside another one: such a box is a part of a product (a label, the
// lower half of a bottle) found next to the whole, which IoU-based suppression keeps (IoU ~0.5). Nor
// mostly over two or more better ones together: on a dense shelf that is a box straddling two facings
// (a third box over two Choco Krave on the identify-shelves bench's h4, identified as a third one).
const NESTED_FRACTION = 0.7;

/** Boxes lying >= NESTED_FRACTION inside better-scoring kept boxes, one or several together, dropped. */
export function dropNestedBoxes<T extends Box & { score: number }>(boxes: readonly T[]): T[] {
  const kept: T[] = [];
  for (const b of [...boxes].sort((a, c) => c.score - a.score)) {
    const area = (b.x2 - b.x1) * (b.y2 - b.y1);
    const parts: Box[] = [];
    for (const k of kept) {
      const part = { x1: Math.max(k.x1, b.x1), y1: Math.max(k.y1, b.y1), x2: Math.min(k.x2, b.x2), y2: Math.min(k.y2, b.y2) };
      if (part.x2 > part.x1 && part.y2 > part.y1) parts.push(part);
    }
    if (area <= 0 || unionArea(parts) / area < NESTED_FRACTION) kept.push(b);
  }
  return boxes.filter((b) => kept.includes(b));
}

/** Area covered by a few rectangles together (a grid over their edges: they are few). */
function unionArea(rects: readonly Box[]): number {
  if (rects.length === 0) return 0;
  const xs = [...new Set(rects.flatMap((r) => [r.x1, r.x2]))].sort((a, b) => a - b);
  const ys = [...new Set(rects.flatMap((r) => [r.y1, r.y2]))].sort((a, b) => a - b);
  let area = 0;
  for (let i = 0; i + 1 < xs.length; i++) {
    for (let j = 0; j + 1 < ys.length; j++) {
      const cx = (xs[i] + xs[i + 1]) / 2;
      const cy = (ys[j] + ys[j + 1]) / 2;
      if (rects.some((r) => r.x1 <= cx && cx < r.x2 && r.y1 <= cy && cy < r.y2)) area += (xs[i + 1] - xs[i]) * (ys[j + 1] - ys[j]);
    }
  }
  return area;
}

export interface IdentifiedBox extends Box {
  score: number;
  sku_id: string | null;
  sku_score: number;
  /** The identifier's best candidates, best first: a reviewer's picker offers them first. */
  suggestions?: { sku_id: string; score: number }[];
}

/** Identifies the product in each box of a decoded photo (SKU id, or null when unknown). */
export async function identifyBoxes(
  raw: RawPixels,
  boxes: readonly (Box & { score: number })[],
  identifier: Identifier,
  checkpoint?: () => Promise<void>,
  pool?: IdentifyPool,
  wider = false,
): Promise<IdentifiedBox[]> {
  const crops = boxes.map((b) => cropRaw(raw, { x: b.x1, y: b.y1, w: b.x2 - b.x1, h: b.y2 - b.y1 }));
  const views = boxes.map((b) => visiblePart(b, raw.height));
  let ids = await identifyCrops(crops, identifier, checkpoint, pool, views);
  if (identifier.skuNames.size > 0) ids = await checkLookAlikesByText(crops, ids, identifier.skuNames);
  ids = takeCutPacks(boxes, ids, raw.height);
  ids = await lookBelow(raw, boxes, ids, identifier);
  if (wider) ids = await secondLook(raw, boxes, ids, identifier, checkpoint, pool);
  return boxes.map((b, i) => ({
    x1: b.x1,
    y1: b.y1,
    x2: b.x2,
    y2: b.y2,
    score: b.score,
    sku_id: ids[i].skuId,
    sku_score: ids[i].score,
    suggestions: (ids[i].suggestions ?? []).map((c) => ({ sku_id: c.skuId, score: c.score })),
  }));
}

/** The photo reduced to grey at the size its features are matched at (bay/register.ts). */
export async function matchingGray(raw: RawPixels): Promise<{ gray: Uint8Array; gw: number; gh: number }> {
  // By area, not by side: a narrow photo keeps enough pixels across its overlap with the next one.
  const scale = Math.min(1, Math.sqrt(MATCH_PIXELS / (raw.width * raw.height)));
  const width = Math.max(1, Math.round(raw.width * scale));
  const height = Math.max(1, Math.round(raw.height * scale));
  const block = Math.floor(1 / scale);
  if (block < 2) {
    const { data, info } = await sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels as 1 | 2 | 3 | 4 } })
      .resize(width, height)
      .grayscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { gray: data, gw: info.width, gh: info.height };
  }
  // A big photo (12 MP: 4x4 blocks): most of the way by averaging whole blocks of pixels in one pass
  // here (~30 ms of CPU against ~130 ms for sharp's resampling of the full colour photo), the rest by
  // sharp on the small grey copy, so the matching size stays what it was. The grey is 601 luma, not
  // quite sharp's: features do not mind, and the pixel check (a correlation) barely does.
  const small = blockGray(raw, block);
  if (small.gw === width && small.gh === height) return small;
  const { data, info } = await sharp(small.gray, { raw: { width: small.gw, height: small.gh, channels: 1 } })
    .resize(width, height, { fit: 'fill' })
    // One channel out: sharp would otherwise answer a grey picture as three.
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { gray: data, gw: info.width, gh: info.height };
}

/** Grey (ITU-R 601 luma) averaged over `block` x `block` pixels; the last partial row and column are left out. */
export function blockGray(raw: RawPixels, block: number): { gray: Uint8Array; gw: number; gh: number } {
  const { data, width, channels } = raw;
  const gw = Math.floor(raw.width / block);
  const gh = Math.floor(raw.height / block);
  const gray = new Uint8Array(gw * gh);
  const acc = new Uint32Array(gw);
  const n = block * block * 256;
  const g = channels >= 3 ? 1 : 0;
  const b = channels >= 3 ? 2 : 0;
  for (let gy = 0; gy < gh; gy++) {
    acc.fill(0);
    for (let dy = 0; dy < block; dy++) {
      let i = (gy * block + dy) * width * channels;
      for (let gx = 0; gx < gw; gx++) {
        let sum = 0;
        for (let dx = 0; dx < block; dx++, i += channels) sum += data[i] * 77 + data[i + g] * 150 + data[i + b] * 29;
        acc[gx] += sum;
      }
    }
    for (let gx = 0; gx < gw; gx++) gray[gy * gw + gx] = Math.round(acc[gx] / n);
  }
  return { gray, gw, gh };
}

const MATCH_PIXELS = 640_000;

/**
 * Each photo is analysed on its own (its products on its own shelves, rack = its index); a scene of
 * several photos is then joined into one bay (bay/register.ts), which the reports count once.
 */
export async function analyzeScene(images: readonly SceneImage[], parts: PipelineParts, hints: BayHints = {}): Promise<SceneAnalysis> {
  const ms: SceneAnalysis['ms'] & { bay: number } = { decode: 0, detect: 0, identify: 0, bay: 0, ...(parts.prices ? { prices: 0 } : {}) };
  const out: ImageAnalysis[] = [];
  const grays: { gray: Uint8Array; gw: number; gh: number }[] = [];
  const keepGray = images.length > 1 ? async (raw: RawPixels) => {
    const t = performance.now();
    grays.push(await matchingGray(raw));
    ms.bay += performance.now() - t;
  } : undefined;
  for (const [i, image] of images.entries()) out.push(await analyzeImage(image, i, parts, ms, keepGray, images.length > 1));
  let bay: BayRegistration | undefined;
  if (images.length > 1) {
    const cv = await loadOpenCv();
    bay = registerBay(cv, out.map((img, i) => ({ image: img.image, width: img.width, height: img.height, ...grays[i], boxes: img.products })), hints);
    ms.bay += bay.ms;
  }
  const times: SceneAnalysis['ms'] = { decode: Math.round(ms.decode), detect: Math.round(ms.detect), identify: Math.round(ms.identify) };
  if (ms.prices !== undefined) times.prices = Math.round(ms.prices);
  return bay ? { images: out, ms: { ...times, bay: Math.round(ms.bay) }, bay } : { images: out, ms: times };
}
