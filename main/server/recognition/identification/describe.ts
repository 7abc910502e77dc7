// One decode of a product image into everything identification compares: the global descriptor and
// the local features. Computed once per reference image when it is added (and stored), once per
// detected product at recognition time.
import sharp from 'sharp';
import { DESCRIPTOR_SIZE, GLOBAL_LEN, globalDescriptor } from './global-descriptor.js';
import { openImage, type ImageInput, type Rect } from './image-input.js';
import { LOCAL_SIDE, localFeatures, QUERY_FEATURES, type LocalFeatures } from './local-features.js';

export interface ProductDescriptor {
  global: Float32Array;
  local: LocalFeatures;
}

/** A product to identify: its global descriptor now, its local features only if they are needed. */
export interface ProductQuery {
  global: Float32Array;
  local: () => Promise<LocalFeatures>;
}

/** Cheap first: the global descriptor; local features are computed on the first call of `local`. */
export async function describeQuery(input: ImageInput, crop?: Rect | null): Promise<ProductQuery> {
  const { data, info } = await openImage(input, crop)
    .removeAlpha()
    .toColourspace('srgb')
    .resize(DESCRIPTOR_SIZE, DESCRIPTOR_SIZE, { fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const global = globalDescriptor({ data, width: DESCRIPTOR_SIZE, height: DESCRIPTOR_SIZE, channels: info.channels });
  let local: Promise<LocalFeatures> | undefined;
  return {
    global,
    local: () =>
      (local ??= (async () => {
        const { data: gray, info: g } = await openImage(input, crop)
          .removeAlpha()
          .resize(LOCAL_SIDE, LOCAL_SIDE, { fit: 'inside', kernel: 'linear' })
          .grayscale()
          .raw()
          .toBuffer({ resolveWithObject: true });
        return localFeatures({ data: gray, width: g.width, height: g.height, channels: 1 }, QUERY_FEATURES);
      })()),
  };
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
  return { global, local };
}

// Stored layout (little-endian): u32 version, u32 global length, f32[global], u32 keypoint count,
// f32[2 * count] points, u8[32 * count] descriptors.
const FORMAT_VERSION = 1;

export function encodeDescriptor(d: ProductDescriptor): Buffer {
  const n = d.local.count;
  const buf = Buffer.alloc(12 + d.global.length * 4 + n * 8 + n * 32);
  let o = 0;
  buf.writeUInt32LE(FORMAT_VERSION, o); o += 4;
  buf.writeUInt32LE(d.global.length, o); o += 4;
  Buffer.from(d.global.buffer, d.global.byteOffset, d.global.byteLength).copy(buf, o); o += d.global.byteLength;
  buf.writeUInt32LE(n, o); o += 4;
  Buffer.from(d.local.points.buffer, d.local.points.byteOffset, d.local.points.byteLength).copy(buf, o); o += n * 8;
  Buffer.from(d.local.descriptors.buffer, d.local.descriptors.byteOffset, d.local.descriptors.byteLength).copy(buf, o);
  return buf;
}

/** Null when the blob was written by another descriptor version (then it is recomputed). */
export function decodeDescriptor(buf: Uint8Array): ProductDescriptor | null {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < 12 || b.readUInt32LE(0) !== FORMAT_VERSION || b.readUInt32LE(4) !== GLOBAL_LEN) return null;
  let o = 8;
  const global = new Float32Array(GLOBAL_LEN);
  for (let i = 0; i < GLOBAL_LEN; i++, o += 4) global[i] = b.readFloatLE(o);
  const n = b.readUInt32LE(o); o += 4;
  const points = new Float32Array(n * 2);
  for (let i = 0; i < n * 2; i++, o += 4) points[i] = b.readFloatLE(o);
  const descriptors = new Uint8Array(b.subarray(o, o + n * 32));
  return { global, local: { count: n, points, descriptors } };
}
