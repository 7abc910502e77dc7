/**
 * The shelf detector: one box per product facing in a shelf photo, on CPU, offline.
 *
 *   const detector = await createDetector({ modelPath?, threads?, inputSize?, scoreThreshold? });
 *   const { width, height, boxes, ms } = await detector.detect(input);
 *   await detector.close();
 *
 * `input` is an encoded image (Buffer or file path; JPEG, PNG, WebP, TIFF...) or raw pixels
 * `{ data, width, height, channels }`. `width`/`height` are the image's size as displayed (after its EXIF
 * orientation); `boxes` are `{ x1, y1, x2, y2, score }` in those pixels, best first; `ms` is the wall time
 * of the call. Unreadable input rejects with `DetectorInputError`. `detect` calls may overlap; they are
 * run one at a time on the session.
 *
 * The model (models/shelf-detector.onnx, see models/MODEL_CARD.md) takes the whole photo with its long
 * side resized to `inputSize` (never enlarged): the model's own `input_size` metadata, else 1280, which
 * keeps the products of a 12 MP shelf photo 25..190 px tall, inside the range it was trained on. On the
 * hand-labelled real photos 1280 beat 1024 for every model tried until the MobileNetV2 one (AP50
 * +0.02..+0.06), which was as good at 1152 for less memory (models/MODEL_CARD.md). When the products
 * found are mostly tiny (see TINY_SIDE), the photo is looked at a second time, enlarged by `zoom`, in
 * bands no larger than the first pass (bands.ts), and the small products are taken from that pass.
 */
import { readFile } from 'node:fs/promises';

import * as ort from 'onnxruntime-node';

import { planBands, sliceRows } from './bands.js';
import { decodePeaks, type Box, type HeadOutputs } from './decode.js';
import { defaultModelPath } from './model-path.js';
import { median } from '../median.js';
import { modelMetadata, readModelMetadata } from '../model-metadata.js';
import { nms } from './nms.js';
import { prepare, render, type DetectorInput, type Prepared } from './preprocess.js';
import { averageWithMirror, mirrorTensor } from './test-time.js';

export type { Box } from './decode.js';
export { DetectorInputError, type DetectorInput } from './preprocess.js';
export { defaultModelPath } from './model-path.js';

export type DetectorOptions = {
  modelPath?: string;
  /** onnxruntime intra-op threads (default 2) */
  threads?: number;
  /** long side of the network input in pixels (default: the model's `input_size` metadata, else 1280) */
  inputSize?: number;
  /** minimum centre score of a box (default: the model's own, see modelScoreThreshold) */
  scoreThreshold?: number;
  /** boxes overlapping a better one by more than this IoU are dropped (default 0.6; 1 keeps them all) */
  iouThreshold?: number;
  /**
   * photos of very small products get a second pass enlarged by this factor (default 1.5; 1 turns it
   * off): see TINY_SIDE
   */
  zoom?: number;
  /** also run each pass on the mirrored image and average the two (default false: on real photos it drops
   * doubtful products under the threshold, and it doubles the time) */
  mirror?: boolean;
  maxBoxes?: number;
  /** photos where the first pass finds few products get a look reduced, for close-ups (default true): see FEW_PRODUCTS */
  wide?: boolean;
  /**
   * the zoomed pass runs in horizontal bands of at most this many input pixels (default: the first pass's
   * own, or 2^20 if more, so the zoomed pass needs no more memory than the first): see bands.ts
   */
  maxPassPixels?: number;
};

export type Detection = { width: number; height: number; boxes: Box[]; ms: number };

export type Detector = {
  detect(input: DetectorInput): Promise<Detection>;
  close(): Promise<void>;
  readonly modelPath: string;
  /** the score cut in use: the caller's, else the model's */
  readonly scoreThreshold: number;
  /** the long side of the first pass's input: the caller's, else the model's, else 1280 */
  readonly inputSize: number;
};

const STRIDE = 4;
// The cut for a model that does not name its own (see modelScoreThreshold): the one every single network
// before the shipped ensemble was chosen with.
const FALLBACK_SCORE = 0.3;
// Zoom: when the typical product of a photo is under TINY_SIDE input pixels (short side), the stride-4
// heatmap places and sizes many of them badly, so the photo is run again enlarged by `zoom`; products under
// SMALL_SIDE come from that pass, the others from the first, and NMS settles the overlap. The enlarged
// pass is not used on photos of larger products: there it boxes the print on packages and price tags.
// Both chosen on the held-out generated set and checked on the real photos (models/RESEARCH_LOG.md).
const TINY_SIDE = 16;
// The typical product is judged on sure boxes, whatever threshold the caller asked for.
const SURE_SCORE = 0.3;
const SMALL_SIDE = 24;
// Rows a band of the zoomed pass sees beyond its core: the products it keeps are under
// SMALL_SIDE * zoom input pixels, so a product centred in the core is seen whole, with context around it.
const BAND_MARGIN = 64;
const DEFAULT_INPUT_SIZE = 1280;
// Inputs up to this many pixels are never banded, whatever the first pass's size: little memory is at
// stake there, and a small photo's zoomed pass stays whole.
const MIN_BAND_PIXELS = 1 << 20;
// Wide look: the network was trained on products 25..190 input pixels tall, so a close-up (a few facings
// filling the frame, 300+ px tall even at the photo's own size) gives it nothing to peak on. When the
// first pass finds fewer than FEW_PRODUCTS sure products, the photo is looked at again reduced to these
// long sides, where such facings fall into the trained range; the reduced passes are small and cheap.
// Chosen on the identify-shelves bench's choice half: at 384 and 256 every facing of its close-ups is
// found, at the photo's own size none is.
const FEW_PRODUCTS = 8;
const WIDE_SIZES = [384, 256];
// Two looks at different scales box one product a little differently; boxes overlapping this much are one.
const WIDE_IOU = 0.4;
// Far below the trained range: on a photo whose typical product is not tiny (the zoomed pass is not
// taken), a first-pass box under TOO_SMALL_SIDE input pixels and under TOO_SMALL_SHARE of the typical
// product's side is print, not a product: looked at on the real shelf photos and the exam scenes, all 19
// such boxes lay on price tags, signs and the lettering of packs, and a bay photo of the bay bench had 40
// on a perforated shelf lip (docs/recognition.md, "Boxes far below the trained range"). A real product
// that small beside ordinary ones would have under a sixteenth of their area.
const TOO_SMALL_SIDE = 10;
const TOO_SMALL_SHARE = 0.25;

/**
 * The default cut of the reported boxes belongs to the weights, not to this code: how high a network's
 * heatmap peaks run depends on the network (an ensemble's averaged peaks run lower than one network's), so
 * export.py records the cut chosen with them on the labelled real photos as the model's `score_threshold`
 * metadata (models/MODEL_CARD.md). A model without it gets FALLBACK_SCORE.
 */
export async function modelScoreThreshold(modelPath: string): Promise<number> {
  return scoreThresholdIn(await readModelMetadata(modelPath), modelPath);
}

/** The input size a model was chosen at (export.py --input-size), if it names one. */
function inputSizeIn(metadata: Record<string, string>, modelPath: string): number | undefined {
  const raw = metadata.input_size;
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!(Number.isInteger(value) && value >= 32 && value <= 8192)) throw new Error(`${modelPath}: its input_size metadata ${JSON.stringify(raw)} is not a whole number of pixels from 32 to 8192`);
  return value;
}

function scoreThresholdIn(metadata: Record<string, string>, modelPath: string): number {
  const raw = metadata.score_threshold;
  if (raw === undefined) return FALLBACK_SCORE;
  const value = Number(raw);
  if (!(value > 0 && value < 1)) throw new Error(`${modelPath}: its score_threshold metadata ${JSON.stringify(raw)} is not a number between 0 and 1`);
  return value;
}

export async function createDetector(options: DetectorOptions = {}): Promise<Detector> {
  const modelPath = options.modelPath ?? defaultModelPath();
  const iouThreshold = options.iouThreshold ?? 0.6;
  const maxBoxes = options.maxBoxes ?? 3000;
  const zoom = options.zoom ?? 1.5;
  const mirror = options.mirror ?? false;
  const wide = options.wide ?? true;
  if (!(zoom >= 1 && zoom <= 4)) throw new RangeError(`zoom must be between 1 and 4, not ${options.zoom}`);
  if (!(iouThreshold > 0 && iouThreshold <= 1)) throw new RangeError(`iouThreshold must be above 0 and at most 1, not ${options.iouThreshold}`);
  if (options.inputSize !== undefined && !(options.inputSize >= 32 && options.inputSize <= 8192)) {
    throw new RangeError(`inputSize must be between 32 and 8192, not ${options.inputSize}`);
  }
  if (options.maxPassPixels !== undefined && !(options.maxPassPixels >= 32 * 32)) {
    throw new RangeError(`maxPassPixels must be at least ${32 * 32}, not ${options.maxPassPixels}`);
  }
  // One read serves both the session and the metadata that names the model's score cut and input size.
  const bytes = await readFile(modelPath);
  const session = await ort.InferenceSession.create(bytes, {
    intraOpNumThreads: options.threads ?? 2,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // The memory pattern plans one block for every intermediate tensor of the first run's shape and keeps
    // it: at the 960x1280 input it took peak RSS of one inference from 266 to 333 MB (shipped ensemble)
    // and 490 to 783 MB (a MobileNetV2 detector), at no measured cost in speed; the arena still reuses memory.
    enableMemPattern: false,
  });
  let scoreThreshold: number;
  let inputSize: number;
  try {
    const metadata = modelMetadata(bytes);
    scoreThreshold = options.scoreThreshold ?? scoreThresholdIn(metadata, modelPath);
    inputSize = options.inputSize ?? inputSizeIn(metadata, modelPath) ?? DEFAULT_INPUT_SIZE;
  } catch (err) {
    await session.release();
    throw err;
  }
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  /** Runs the network on one input (and its mirror image when asked) and decodes the boxes, input pixels. */
  async function peaks(p: Prepared): Promise<Box[]> {
    const infer = async (tensor: Float32Array) => {
      const out = await session.run({ image: new ort.Tensor('float32', tensor, [1, 3, p.inputHeight, p.inputWidth]) });
      const [, , h, w] = out.heatmap.dims as number[];
      const heads: HeadOutputs = {
        heatmap: out.heatmap.data as Float32Array,
        size: out.size.data as Float32Array,
        offset: out.offset.data as Float32Array,
        width: w,
        height: h,
        stride: STRIDE,
      };
      return { heads, release: () => Object.values(out).forEach((o) => o.dispose?.()) };
    };
    const plain = await infer(p.tensor);
    try {
      if (!mirror) return decodePeaks(plain.heads, scoreThreshold);
      const mirrored = await infer(mirrorTensor(p.tensor, p.inputWidth));
      try {
        return decodePeaks(averageWithMirror(plain.heads, mirrored.heads), scoreThreshold);
      } finally {
        mirrored.release();
      }
    } finally {
      plain.release();
    }
  }

  /** The peaks of an input in bands of at most `maxPixels` (one band when it fits), input pixels. */
  async function bandedPeaks(p: Prepared, maxPixels: number): Promise<Box[]> {
    const bands = planBands(p.inputHeight, p.inputWidth, maxPixels, BAND_MARGIN);
    if (bands.length === 1) return peaks(p);
    const found: Box[] = [];
    for (const band of bands) {
      const tensor = sliceRows(p.tensor, p.inputWidth, p.inputHeight, band.y0, band.y1);
      for (const b of await peaks({ ...p, tensor, inputHeight: band.y1 - band.y0 })) {
        const y1 = b.y1 + band.y0;
        const y2 = b.y2 + band.y0;
        const centre = (y1 + y2) / 2;
        // Each box is answered for by the one band whose core holds its centre: no seam duplicates.
        if (centre >= band.core0 && centre < band.core1) found.push({ ...b, y1, y2 });
      }
    }
    return found.sort((a, b) => b.score - a.score);
  }

  /** Boxes of one pass in the image's pixels, with their short side in first-pass input pixels. */
  async function pass(p: Prepared, base: number, maxPixels = Infinity) {
    const inv = 1 / p.scale;
    const boxes: (Box & { side: number })[] = [];
    for (const b of await bandedPeaks(p, maxPixels)) {
      const x1 = Math.max(0, b.x1 * inv);
      const y1 = Math.max(0, b.y1 * inv);
      const x2 = Math.min(p.width, b.x2 * inv);
      const y2 = Math.min(p.height, b.y2 * inv);
      if (x2 - x1 < 1 || y2 - y1 < 1) continue;
      boxes.push({ x1, y1, x2, y2, score: b.score, side: Math.min(x2 - x1, y2 - y1) * base });
    }
    return boxes;
  }

  async function run(input: DetectorInput): Promise<Detection> {
    const t0 = performance.now();
    const first = await prepare(input, inputSize);
    const { width, height, scale: base } = first;
    let found = await pass(first, base);
    // A photo of many small products (the typical box under TINY_SIDE) gets a second, zoomed look.
    const sure = found.filter((b) => b.score >= SURE_SCORE).map((b) => b.side);
    const typical = median(sure);
    if (sure.length > 0 && typical >= TINY_SIDE) found = found.filter((b) => b.side >= TOO_SMALL_SIDE || b.side >= TOO_SMALL_SHARE * typical);
    if (zoom > 1 && sure.length > 0 && typical < TINY_SIDE) {
      // Decoded again, not kept from the first pass: JPEG shrink-on-load makes the first decode cheap.
      // Measured on a 12 MP photo: 60 ms to the first pass's input, 141 ms to this one's; one full-size
      // decode (157 ms, oriented) plus two resizes (16 + 20 ms) would cost every photo about 110 ms more
      // to save about 8 ms on the few that take this pass.
      const maxPixels = options.maxPassPixels ?? Math.max(MIN_BAND_PIXELS, first.inputWidth * first.inputHeight);
      const small = await pass(await render(input, width, height, base * zoom), base, maxPixels);
      found = [...found.filter((b) => b.side >= 0.75 * SMALL_SIDE), ...small.filter((b) => b.side < SMALL_SIDE)];
    }
    if (wide && sure.length < FEW_PRODUCTS) {
      const longSide = Math.max(width, height);
      const wide: typeof found = [];
      for (const size of WIDE_SIZES) {
        if (size * 1.25 <= longSide * base) wide.push(...(await pass(await render(input, width, height, size / longSide), base)));
      }
      if (wide.length > 0) found = nms([...found, ...wide], WIDE_IOU, maxBoxes);
    }
    const boxes = nms(found, iouThreshold, maxBoxes).map(({ x1, y1, x2, y2, score }) => ({ x1, y1, x2, y2, score }));
    return { width, height, boxes, ms: performance.now() - t0 };
  }

  return {
    modelPath,
    scoreThreshold,
    inputSize,
    detect(input) {
      if (closed) return Promise.reject(new Error('detector is closed'));
      const result = queue.then(() => run(input));
      queue = result.catch(() => undefined);
      return result;
    },
    async close() {
      if (closed) return;
      closed = true;
      await queue;
      await session.release();
    },
  };
}
