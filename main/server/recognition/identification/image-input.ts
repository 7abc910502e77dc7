// What identification accepts as an image: encoded bytes or a path (decoded by sharp), or raw pixels
// already in memory (the pipeline decodes a shelf photo once and cuts every product from it).
import sharp, { type Sharp } from 'sharp';

export interface RawPixels {
  data: Uint8Array;
  width: number;
  height: number;
  channels: number;
}

export type ImageInput = Buffer | string | RawPixels;

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Copies the pixels of `crop` (clamped to the image) out of a raw image. */
export function cropRaw(input: RawPixels, crop: Rect): RawPixels {
  const left = Math.max(0, Math.min(input.width - 1, Math.floor(crop.x)));
  const top = Math.max(0, Math.min(input.height - 1, Math.floor(crop.y)));
  const w = Math.max(1, Math.min(Math.round(crop.w), input.width - left));
  const h = Math.max(1, Math.min(Math.round(crop.h), input.height - top));
  const c = input.channels;
  const out = Buffer.allocUnsafe(w * h * c);
  const src = Buffer.from(input.data.buffer, input.data.byteOffset, input.data.byteLength);
  for (let y = 0; y < h; y++) {
    const from = ((top + y) * input.width + left) * c;
    src.copy(out, y * w * c, from, from + w * c);
  }
  return { data: out, width: w, height: h, channels: c };
}

/** A sharp pipeline over the input, EXIF-rotated, cropped to `crop` (clamped to the image) when given. */
export function openImage(input: ImageInput, crop?: Rect | null): Sharp {
  if (typeof input === 'string' || Buffer.isBuffer(input)) {
    const img = sharp(input, { failOn: 'error' }).rotate();
    if (!crop) return img;
    return img.extract({
      left: Math.max(0, Math.floor(crop.x)),
      top: Math.max(0, Math.floor(crop.y)),
      width: Math.max(1, Math.round(crop.w)),
      height: Math.max(1, Math.round(crop.h)),
    });
  }
  // Raw pixels (a decoded 12 MP photo): hand sharp only the crop's rows, not the whole frame per box.
  const part = crop ? cropRaw(input, crop) : input;
  const data = Buffer.from(part.data.buffer, part.data.byteOffset, part.data.byteLength);
  return sharp(data, { raw: { width: part.width, height: part.height, channels: part.channels as 1 | 2 | 3 | 4 } });
}
