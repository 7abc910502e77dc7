/**
 * The price-tag detector: a box around every price label of a shelf photo (shelf-edge labels, label
 * rails, peg tags), on the CPU, offline. Its own small model (models/price-tag-detector.onnx, see
 * models/MODEL_CARD-price-tags.md), trained by the project on generated scenes, with the product detector's
 * interface (image -> heatmap, size, offset), so it runs through the same preprocessing, peak decoding and
 * NMS (../detector/).
 *
 *   const tags = await detectPriceTags({ data, info: { width, height, channels } });
 *
 * `raw` is the photo's pixels after its EXIF orientation, as the pipeline decodes them for the product
 * detector; boxes `{ x1, y1, x2, y2, score }` are in those pixels, best first. The model is loaded on the
 * first call (one session per process, its calls run one at a time); `closePriceTagDetector` releases it.
 */
import { createDetector, DetectorInputError, type Box, type Detector } from '../detector/index.js';
import { findModelFile } from '../model-files.js';

export const PRICE_TAG_MODEL_FILE = 'price-tag-detector.onnx';

export type PriceTagBox = Box;

/** Raw pixels as sharp's `.raw().toBuffer({ resolveWithObject: true })` gives them. */
export type RawPhoto = { data: Buffer; info: { width: number; height: number; channels: number } };

export type PriceTagDetectorOptions = {
  /** another model file (default: models/price-tag-detector.onnx) */
  modelPath?: string;
  /** onnxruntime intra-op threads (default 2) */
  threads?: number;
  /** minimum centre score of a tag (default: the model's `score_threshold` metadata) */
  scoreThreshold?: number;
  /** long side of the network input (default: the model's `input_size` metadata) */
  inputSize?: number;
};

// Neighbouring labels in a rail touch but barely overlap; two boxes overlapping more are one tag found twice.
const IOU = 0.5;
// Far more than any shelf photo holds (a dense 12 MP photo of label rails: about 200), a bound on work.
const MAX_TAGS = 1000;

let options: PriceTagDetectorOptions = {};
let loading: Promise<Detector> | null = null;

/** A loaded tag model: the analyser holds one per model file in use (an installed one, recognition/model-store.ts). */
export interface PriceTagDetector {
  detect(raw: RawPhoto): Promise<PriceTagBox[]>;
  close(): Promise<void>;
}

/** The model file in use: the configured one, else the shipped one. */
export function priceTagModelPath(): string {
  return options.modelPath ?? findModelFile(PRICE_TAG_MODEL_FILE);
}

/**
 * Sets the options of the detector loaded from now on (tests, benches, a model installed elsewhere);
 * a detector already loaded is closed first.
 */
export async function configurePriceTagDetector(next: PriceTagDetectorOptions): Promise<void> {
  await closePriceTagDetector();
  options = { ...next };
}

function load(o: PriceTagDetectorOptions): Promise<Detector> {
  return createDetector({
    modelPath: o.modelPath ?? findModelFile(PRICE_TAG_MODEL_FILE),
    threads: o.threads,
    scoreThreshold: o.scoreThreshold,
    inputSize: o.inputSize,
    iouThreshold: IOU,
    maxBoxes: MAX_TAGS,
    // The product detector's extra looks are for tiny products and close-ups of a few facings; the tag
    // model is trained on the range of tag sizes a shelf photo at its input size shows.
    zoom: 1,
    wide: false,
  });
}

/**
 * Loads a tag model of its own (`modelPath`, default the shipped one), apart from detectPriceTags' shared
 * one; rejects when the file does not load.
 */
export async function createPriceTagDetector(o: PriceTagDetectorOptions = {}): Promise<PriceTagDetector> {
  const d = await load(o);
  return { detect: (raw) => detectWith(d, raw), close: () => d.close() };
}

function detector(): Promise<Detector> {
  if (!loading) {
    loading = load({ ...options, modelPath: priceTagModelPath() });
    // A failed load (missing or broken file) is not kept: the next call tries again.
    loading.catch(() => {
      loading = null;
    });
  }
  return loading;
}

export async function detectPriceTags(raw: RawPhoto): Promise<PriceTagBox[]> {
  checkRaw(raw);
  return detectWith(await detector(), raw);
}

async function detectWith(d: Detector, raw: RawPhoto): Promise<PriceTagBox[]> {
  const { width, height, channels } = checkRaw(raw);
  const { boxes } = await d.detect({ data: raw.data, width, height, channels });
  return boxes;
}

/** The photo's size, or DetectorInputError saying what is wrong with it. */
function checkRaw(raw: RawPhoto): { width: number; height: number; channels: 1 | 2 | 3 | 4 } {
  const info = raw?.info;
  const width = info?.width;
  const height = info?.height;
  const channels = info?.channels;
  // A Buffer is a Uint8Array; callers outside TypeScript may pass anything.
  if (!((raw?.data as unknown) instanceof Uint8Array)) throw new DetectorInputError('cannot read raw image: no pixel data');
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw new DetectorInputError(`cannot read raw image: size ${width}x${height}`);
  }
  if (!(channels === 1 || channels === 2 || channels === 3 || channels === 4)) {
    throw new DetectorInputError(`cannot read raw image: ${channels} channels`);
  }
  if (raw.data.length !== width * height * channels) {
    throw new DetectorInputError(`cannot read raw image: ${raw.data.length} bytes for ${width}x${height}x${channels}`);
  }
  return { width, height, channels };
}

/** Releases the model's session (the next detectPriceTags loads it again). */
export async function closePriceTagDetector(): Promise<void> {
  const current = loading;
  loading = null;
  if (current) await (await current.catch(() => null))?.close();
}
