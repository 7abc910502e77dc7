// What identification accepts as an image: encoded bytes or a path (decoded by sharp), or raw pixels
// already in memory (the pipeline decodes a shelf photo once and cuts every product from it).
import sharp, { type Sharp } from 'sharp';
import { cropRaw, type RawPixels, type Rect } from '../raw-pixels.js';

export type ImageInput = Buffer | string | RawPixels;

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
