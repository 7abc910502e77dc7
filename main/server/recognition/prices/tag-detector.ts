/**
 * The price-tag detector: a box around every price label of a shelf photo (shelf-edge labels, label
 * rails, peg tags), on the CPU, offline. Its own small model (models/price-tag-detector.onnx, see
 * models/MODEL_CARD-price-tags.md), trained by the project on generated scenes, with the product detector's
 * interface (image -> heatmap, size, offset), so it runs through the same preprocessing, peak decoding and
 * NMS (../detector/).
 *
 *   const tags = await detectPriceTags({ data, width, height, channels });
 *
 * `raw` is the photo's pixels after its EXIF orientation, as the pipeline decodes them for the product
 * detector; boxes `{ x1, y1, x2, y2, score }` are in those pixels, best first. The model is loaded on the
 * first call (one session per process, its calls run one at a time); `closePriceTagDetector` releases it.
 */
import { createDetector, type Box, type Detector } from '../detector/index.js';
import type { RawPixels } from '../raw-pixels.js';
import { findModelFile } from '../model-files.js';

export const PRICE_TAG_MODEL_FILE = 'price-tag-detector.onnx';

export type PriceTagBox = Box;


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
  detect(raw: RawPixels): Promise<PriceTagBox[]>;
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

export async function detectPriceTags(raw: RawPixels): Promise<PriceTagBox[]> {
  return detectWith(await detector(), raw);
}

/** The detector checks the pixels (DetectorInputError saying what is wrong with them). */
async function detectWith(d: Detector, raw: RawPixels): Promise<PriceTagBox[]> {
  const { boxes } = await d.detect(raw);
  return boxes;
}

/** Releases the model's session (the next detectPriceTags loads it again). */
export async function closePriceTagDetector(): Promise<void> {
  const current = loading;
  loading = null;
  if (current) await (await current.catch(() => null))?.close();
}
