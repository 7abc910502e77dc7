// The learned appearance embedding: the project's ProductNet (models/product-embedder.onnx, see
// models/MODEL_CARD-embedder.md) maps a product image to a 128-d unit vector; the same product under
// another viewpoint, light or background lands close, different products far apart. It is what
// identification mainly ranks by; the classic descriptors and local features refine it.
import * as ort from 'onnxruntime-node';
import { findModelFile, modelDigest, modelVersion, modelVersionAsync } from '../model-files.js';
import { openImage, type ImageInput } from './image-input.js';
import type { Rect } from '../raw-pixels.js';

export const EMBED_MODEL_FILE = 'product-embedder.onnx';
export const EMBED_SIDE = 96;
export const EMBED_DIM = 128;
// Crops per onnxruntime call: large enough to amortise the call, small enough to bound the input tensor.
const BATCH = 32;

let session: Promise<ort.InferenceSession> | undefined;
// onnxruntime threads of the session: the server's embedThreads setting, handed over by the analyser.
let threads = 2;
let fingerprint: number | undefined;
// An embedder installed in the data folder (recognition/model-store.ts), or null for the shipped one.
// Chosen by the recognition worker between jobs, and sent to identification threads with each task.
let installed: string | null = null;
// The file used when none is installed: the shipped model, unless a setting names another
// (SHELF_EMBEDDER_MODEL, handed down by the analyser: setShippedEmbedder).
let shipped: string | null = null;
const modelPath = () => installed ?? findModelFile(EMBED_MODEL_FILE, shipped);

/** Uses `file` in place of the shipped embedder (null: the shipped one); like useEmbedderModel, only between jobs. */
export function setShippedEmbedder(file: string | null): void {
  if (file === shipped) return;
  shipped = file;
  const old = session;
  session = undefined;
  fingerprint = undefined;
  void old?.then((s) => s.release()).catch(() => undefined);
}

/** Sets the onnxruntime threads of the embedder's session (before it loads; a loaded one keeps its own). */
export function setEmbedderThreads(n: number): void {
  threads = Math.max(1, n);
}

/** The installed embedder this process uses (null: the shipped one). */
export function activeEmbedderPath(): string | null {
  return installed;
}

/**
 * Switches this process to another embedder file (null: the shipped one); true when it changed. The
 * fingerprint changes with it, so stored reference embeddings are recomputed rather than compared
 * across models. Only between jobs: a job's embeddings must all come from one model.
 */
export function useEmbedderModel(file: string | null): boolean {
  if (file === installed) return false;
  installed = file;
  const old = session;
  session = undefined;
  fingerprint = undefined;
  void old?.then((s) => s.release()).catch(() => undefined);
  return true;
}

/** Loads the current embedder now: a file that does not load fails here, between jobs, not inside one. */
export async function loadEmbedder(): Promise<void> {
  await getSession();
}

/** `product-embedder sha256:0123456789ab`, or null when the model is missing (for reporting). */
export function embedderModelVersion(): string | null {
  return modelVersion(modelPath);
}

/** embedderModelVersion without holding the event loop while the file is hashed. */
export function embedderModelVersionAsync(): Promise<string | null> {
  return modelVersionAsync(modelPath);
}

/**
 * A fingerprint of the model file (the first 32 bits of its SHA-256). Stored embeddings carry it:
 * vectors of another model are not comparable, so they are recomputed rather than matched.
 */
export function embedderVersion(): number {
  // Cached: every stored descriptor is checked against it when a catalog loads.
  fingerprint ??= Buffer.from(modelDigest(modelPath()).slice(0, 8), 'hex').readUInt32LE(0);
  return fingerprint;
}

function getSession(): Promise<ort.InferenceSession> {
  session ??= ort.InferenceSession.create(modelPath(), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    // Between the many small batches of a photo sharp resizes the next crops on the same cores; idle
    // onnxruntime threads spinning for work would take their CPU.
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  }).catch((e: unknown) => {
    session = undefined;
    throw e;
  });
  return session;
}

/** The model's input for one image: RGB, EMBED_SIDE x EMBED_SIDE, the aspect not kept (as in training). */
export async function embeddingInput(input: ImageInput, crop?: Rect | null): Promise<Buffer> {
  return openImage(input, crop)
    .removeAlpha()
    .toColourspace('srgb')
    .resize(EMBED_SIDE, EMBED_SIDE, { fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer();
}

/** Embeds RGB EMBED_SIDE^2 images (embeddingInput's output), in batches. */
export async function embed(inputs: readonly Buffer[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  if (inputs.length === 0) return out;
  const s = await getSession();
  const plane = EMBED_SIDE * EMBED_SIDE;
  for (let from = 0; from < inputs.length; from += BATCH) {
    const part = inputs.slice(from, from + BATCH);
    const tensor = new Float32Array(part.length * 3 * plane);
    part.forEach((rgb, n) => {
      const base = n * 3 * plane;
      for (let i = 0; i < plane; i++) {
        tensor[base + i] = rgb[i * 3];
        tensor[base + plane + i] = rgb[i * 3 + 1];
        tensor[base + 2 * plane + i] = rgb[i * 3 + 2];
      }
    });
    const result = await s.run({ image: new ort.Tensor('float32', tensor, [part.length, 3, EMBED_SIDE, EMBED_SIDE]) });
    const data = result.embedding.data as Float32Array;
    for (let n = 0; n < part.length; n++) out.push(data.slice(n * EMBED_DIM, (n + 1) * EMBED_DIM));
  }
  return out;
}

/** Cosine similarity of two unit vectors. */
export function embeddingSimilarity(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
