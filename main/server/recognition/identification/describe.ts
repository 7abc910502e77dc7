// One decode of a product image into everything identification compares: the learned embedding, the
// classic global descriptor and the local features. Computed once per reference image when it is added (and stored), once per
// detected product at recognition time.
import sharp from 'sharp';
import { COLOUR_LEN, colourLayout } from './colour-layout.js';
import { EMBED_DIM, EMBED_SIDE, embed, embedderVersion, embeddingInput } from './embedding.js';
import { DESCRIPTOR_SIZE, GLOBAL_LEN, globalDescriptor } from './global-descriptor.js';
import { openImage, type ImageInput } from './image-input.js';
import type { Rect } from '../raw-pixels.js';
import { LOCAL_SIDE, localFeatures, QUERY_FEATURES, type LocalFeatures } from './local-features.js';

export interface ProductDescriptor {
  embedding: Float32Array;
  global: Float32Array;
  /** colour-layout.ts, of the same square resample as the embedding's input. */
  colour: Float32Array;
  local: LocalFeatures;
  /**
   * A reference's upper and lower parts described on their own (describeReference): what a pack cut by
   * the photo's bottom or top edge shows of it.
   */
  parts?: ProductPart[];
}

/** Which part of a pack a crop shows: its upper part (cut by the photo's bottom edge) or its lower part (cut by the top). */
export type PackView = 'upper' | 'lower';

export interface ProductPart {
  view: PackView;
  descriptor: ProductDescriptor;
}

/** A product to identify: its embedding and global descriptor now, its local features only if needed. */
export interface ProductQuery {
  embedding: Float32Array;
  global: Float32Array;
  colour: Float32Array;
  local: () => Promise<LocalFeatures>;
  /** Set when the crop shows only part of its pack (cut by the photo's frame): compared also with that part of each reference. */
  view?: PackView;
}

/** Cheap first: embedding and global descriptor; local features on the first call of `local`. */
export async function describeQuery(input: ImageInput, crop?: Rect | null): Promise<ProductQuery> {
  return (await describeQueries([{ input, crop }]))[0];
}

type QueryItem = { input: ImageInput; crop?: Rect | null };

/** describeQuery for many products at once: the embeddings are computed in batches. */
export async function describeQueries(items: readonly QueryItem[]): Promise<ProductQuery[]> {
  return withEmbeddings(await Promise.all(items.map(({ input, crop }) => queryAppearance(input, crop))));
}

/**
 * describeQueries over consecutive runs of `run` items, run after run. The next run's images are
 * resized (by sharp, on libuv's threads) while this one is embedded (onnxruntime, on the calling
 * thread), rather than after.
 */
export async function* describeQueryRuns(items: readonly QueryItem[], run: number): AsyncGenerator<ProductQuery[]> {
  const prepare = (from: number) => {
    const parts = Promise.all(items.slice(from, from + run).map(({ input, crop }) => queryAppearance(input, crop)));
    parts.catch(() => undefined); // awaited when its turn comes; not unhandled if the caller stops first
    return parts;
  };
  let next = prepare(0);
  for (let from = 0; from < items.length; from += run) {
    const parts = await next;
    if (from + run < items.length) next = prepare(from + run);
    yield await withEmbeddings(parts);
  }
}

async function withEmbeddings(parts: Awaited<ReturnType<typeof queryAppearance>>[]): Promise<ProductQuery[]> {
  const embeddings = await embed(parts.map((p) => p.pixels));
  return parts.map((p, i) => ({ embedding: embeddings[i], global: p.global, colour: p.colour, local: p.local }));
}

// The crop is cut and resized once per product (the embedding's input); the classic descriptor's
// smaller image is resampled from that instead of from the crop again.
async function queryAppearance(input: ImageInput, crop?: Rect | null): Promise<Omit<ProductQuery, 'embedding'> & { pixels: Buffer }> {
  const pixels = await embeddingInput(input, crop);
  const small = await sharp(pixels, { raw: { width: EMBED_SIDE, height: EMBED_SIDE, channels: 3 } })
    .resize(DESCRIPTOR_SIZE, DESCRIPTOR_SIZE, { fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer();
  const global = globalDescriptor({ data: small, width: DESCRIPTOR_SIZE, height: DESCRIPTOR_SIZE, channels: 3 });
  const colour = colourLayout({ data: pixels, width: EMBED_SIDE, height: EMBED_SIDE, channels: 3 });
  return { pixels, global, colour, local: queryLocalFeatures(input, crop) };
}

/** A query's local features, computed on the first call (and kept). */
export function queryLocalFeatures(input: ImageInput, crop?: Rect | null): () => Promise<LocalFeatures> {
  let local: Promise<LocalFeatures> | undefined;
  return () =>
    (local ??= (async () => {
      const { data: gray, info: g } = await openImage(input, crop)
        .removeAlpha()
        .resize(LOCAL_SIDE, LOCAL_SIDE, { fit: 'inside', kernel: 'linear' })
        .grayscale()
        .raw()
        .toBuffer({ resolveWithObject: true });
      return localFeatures({ data: gray, width: g.width, height: g.height, channels: 1 }, QUERY_FEATURES);
    })());
}

export async function describeProduct(input: ImageInput, crop?: Rect | null): Promise<ProductDescriptor> {
  const { data, info } = await openImage(input, crop)
    .removeAlpha()
    .toColourspace('srgb')
    .resize(LOCAL_SIDE, LOCAL_SIDE, { fit: 'inside', kernel: 'linear' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } };
  const small = await sharp(data, raw)
    .resize(DESCRIPTOR_SIZE, DESCRIPTOR_SIZE, { fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer();
  const gray = await sharp(data, raw).grayscale().raw().toBuffer();
  const global = globalDescriptor({ data: small, width: DESCRIPTOR_SIZE, height: DESCRIPTOR_SIZE, channels: info.channels });
  const local = await localFeatures({ data: gray, width: info.width, height: info.height, channels: 1 });
  // From the original pixels, not the 320 px copy, so a reference and a query are resampled alike.
  const pixels = await embeddingInput(input, crop);
  const [embedding] = await embed([pixels]);
  const colour = colourLayout({ data: pixels, width: EMBED_SIDE, height: EMBED_SIDE, channels: 3 });
  return { embedding, global, colour, local };
}

// The parts of a packshot that a pack cut by the photo's top or bottom edge shows: its lower (or upper)
// 40 % and 60 %. Chosen on the identify-shelves bench's choice half (docs/recognition.md): a top-row
// pack cut by the frame is compared with the whole packshot a lot less well than with its lower part.
const PART_FRACTIONS = [0.4, 0.6];

/**
 * A reference image's descriptor: the whole product, and its upper and lower parts (PART_FRACTIONS)
 * described on their own, as a crop cut by the photo's frame shows them.
 */
export async function describeReference(input: ImageInput, crop?: Rect | null): Promise<ProductDescriptor> {
  const whole = await describeProduct(input, crop);
  const meta = await openImage(input, crop).toBuffer({ resolveWithObject: true });
  const { width, height } = meta.info;
  const x = crop ? Math.max(0, Math.floor(crop.x)) : 0;
  const y = crop ? Math.max(0, Math.floor(crop.y)) : 0;
  const parts: ProductPart[] = [];
  for (const f of PART_FRACTIONS) {
    const h = Math.max(1, Math.round(height * f));
    parts.push({ view: 'upper', descriptor: await describeProduct(input, { x, y, w: width, h }) });
    parts.push({ view: 'lower', descriptor: await describeProduct(input, { x, y: y + height - h, w: width, h }) });
  }
  return { ...whole, parts };
}

// Stored layout (little-endian): u32 version, u32 global length, f32[global], u32 embedder version
// (embedderVersion()), u32 embedding length, f32[embedding], u32 colour length, f32[colour], u32
// keypoint count, f32[2 * count] points, u8[32 * count] descriptors, u32 part count, then per part
// u8 view (0 upper, 1 lower), u32 byte length and the part's own blob (no parts of its own). Version 1
// had no embedding, version 2 no colour layout, version 3 no parts; their blobs, and those embedded by
// another model, are recomputed when loaded.
const FORMAT_VERSION = 4;

export function encodeDescriptor(d: ProductDescriptor): Buffer {
  const parts = (d.parts ?? []).map((p) => ({ view: p.view, blob: encodeWhole(p.descriptor) }));
  const tail = Buffer.alloc(4 + parts.reduce((n, p) => n + 5 + p.blob.length, 0));
  let o = tail.writeUInt32LE(parts.length, 0);
  for (const p of parts) {
    o = tail.writeUInt8(p.view === 'upper' ? 0 : 1, o);
    o = tail.writeUInt32LE(p.blob.length, o);
    o += p.blob.copy(tail, o);
  }
  return Buffer.concat([encodeWhole(d), tail]);
}

function encodeWhole(d: ProductDescriptor): Buffer {
  const n = d.local.count;
  const buf = Buffer.alloc(24 + d.global.length * 4 + d.embedding.length * 4 + d.colour.length * 4 + n * 8 + n * 32);
  let o = 0;
  buf.writeUInt32LE(FORMAT_VERSION, o); o += 4;
  buf.writeUInt32LE(d.global.length, o); o += 4;
  Buffer.from(d.global.buffer, d.global.byteOffset, d.global.byteLength).copy(buf, o); o += d.global.byteLength;
  buf.writeUInt32LE(embedderVersion(), o); o += 4;
  buf.writeUInt32LE(d.embedding.length, o); o += 4;
  Buffer.from(d.embedding.buffer, d.embedding.byteOffset, d.embedding.byteLength).copy(buf, o); o += d.embedding.byteLength;
  buf.writeUInt32LE(d.colour.length, o); o += 4;
  Buffer.from(d.colour.buffer, d.colour.byteOffset, d.colour.byteLength).copy(buf, o); o += d.colour.byteLength;
  buf.writeUInt32LE(n, o); o += 4;
  Buffer.from(d.local.points.buffer, d.local.points.byteOffset, d.local.points.byteLength).copy(buf, o); o += n * 8;
  Buffer.from(d.local.descriptors.buffer, d.local.descriptors.byteOffset, d.local.descriptors.byteLength).copy(buf, o);
  return buf;
}

/** Null when the blob was written by another descriptor version (then it is recomputed). */
export function decodeDescriptor(buf: Uint8Array): ProductDescriptor | null {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const whole = decodeWhole(b);
  if (!whole) return null;
  let o = whole.end;
  if (b.length < o + 4) return null;
  const count = b.readUInt32LE(o);
  o += 4;
  const parts: ProductPart[] = [];
  for (let i = 0; i < count; i++) {
    if (b.length < o + 5) return null;
    const view: PackView = b.readUInt8(o) === 0 ? 'upper' : 'lower';
    const length = b.readUInt32LE(o + 1);
    o += 5;
    const part = decodeWhole(b.subarray(o, o + length));
    if (!part) return null;
    parts.push({ view, descriptor: part.descriptor });
    o += length;
  }
  return count > 0 ? { ...whole.descriptor, parts } : whole.descriptor;
}

function decodeWhole(b: Buffer): { descriptor: ProductDescriptor; end: number } | null {
  if (b.length < 12 || b.readUInt32LE(0) !== FORMAT_VERSION || b.readUInt32LE(4) !== GLOBAL_LEN) return null;
  let o = 8;
  const global = new Float32Array(GLOBAL_LEN);
  for (let i = 0; i < GLOBAL_LEN; i++, o += 4) global[i] = b.readFloatLE(o);
  if (b.length < o + 8 || b.readUInt32LE(o) !== embedderVersion() || b.readUInt32LE(o + 4) !== EMBED_DIM) return null;
  o += 8;
  const embedding = new Float32Array(EMBED_DIM);
  for (let i = 0; i < EMBED_DIM; i++, o += 4) embedding[i] = b.readFloatLE(o);
  if (b.length < o + 4 || b.readUInt32LE(o) !== COLOUR_LEN) return null;
  o += 4;
  const colour = new Float32Array(COLOUR_LEN);
  for (let i = 0; i < COLOUR_LEN; i++, o += 4) colour[i] = b.readFloatLE(o);
  const n = b.readUInt32LE(o); o += 4;
  const points = new Float32Array(n * 2);
  for (let i = 0; i < n * 2; i++, o += 4) points[i] = b.readFloatLE(o);
  if (b.length < o + n * 32) return null;
  const descriptors = new Uint8Array(b.subarray(o, o + n * 32));
  return { descriptor: { embedding, global, colour, local: { count: n, points, descriptors } }, end: o + n * 32 };
}
