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
 * side resized to `inputSize` (default 1024), which keeps the products of a 12 MP shelf photo 20..150 px
 * tall, the range it was trained on; raise it for photos of very many very small products.
 */
import * as ort from 'onnxruntime-node';

import { decodePeaks, type Box } from './decode.js';
import { defaultModelPath } from './model-path.js';
import { nms } from './nms.js';
import { prepare, type DetectorInput } from './preprocess.js';

export type { Box } from './decode.js';
export { DetectorInputError, type DetectorInput, type RawImage } from './preprocess.js';
export { defaultModelPath } from './model-path.js';

export type DetectorOptions = {
  modelPath?: string;
  /** onnxruntime intra-op threads (default 2) */
  threads?: number;
  /** long side of the network input in pixels (default 1024) */
  inputSize?: number;
  /** minimum centre score of a box (default 0.3) */
  scoreThreshold?: number;
  /** boxes overlapping a better one by more than this IoU are dropped (default 0.6) */
  iouThreshold?: number;
  maxBoxes?: number;
};

export type Detection = { width: number; height: number; boxes: Box[]; ms: number };

export type Detector = {
  detect(input: DetectorInput): Promise<Detection>;
  close(): Promise<void>;
  readonly modelPath: string;
};

const STRIDE = 4;

export async function createDetector(options: DetectorOptions = {}): Promise<Detector> {
  const modelPath = options.modelPath ?? defaultModelPath();
  const inputSize = options.inputSize ?? 1024;
  const scoreThreshold = options.scoreThreshold ?? 0.3;
  const iouThreshold = options.iouThreshold ?? 0.6;
  const maxBoxes = options.maxBoxes ?? 3000;
  const session = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: options.threads ?? 2,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  async function run(input: DetectorInput): Promise<Detection> {
    const t0 = performance.now();
    const p = await prepare(input, inputSize);
    const feeds = { image: new ort.Tensor('float32', p.tensor, [1, 3, p.inputHeight, p.inputWidth]) };
    const out = await session.run(feeds);
    const hm = out.heatmap;
    const [, , h, w] = hm.dims as number[];
    const raw = decodePeaks(
      {
        heatmap: hm.data as Float32Array,
        size: out.size.data as Float32Array,
        offset: out.offset.data as Float32Array,
        width: w,
        height: h,
        stride: STRIDE,
      },
      scoreThreshold,
    );
    for (const o of Object.values(out)) o.dispose?.();
    const inv = 1 / p.scale;
    const boxes: Box[] = [];
    for (const b of nms(raw, iouThreshold, maxBoxes)) {
      const x1 = Math.max(0, b.x1 * inv);
      const y1 = Math.max(0, b.y1 * inv);
      const x2 = Math.min(p.width, b.x2 * inv);
      const y2 = Math.min(p.height, b.y2 * inv);
      if (x2 - x1 < 1 || y2 - y1 < 1) continue;
      boxes.push({ x1, y1, x2, y2, score: b.score });
    }
    return { width: p.width, height: p.height, boxes, ms: performance.now() - t0 };
  }

  return {
    modelPath,
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
