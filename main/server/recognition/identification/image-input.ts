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

/** A sharp pipeline over the input, EXIF-rotated, cropped to `crop` (clamped to the image) when given. */
export function openImage(input: ImageInput, crop?: Rect | null): Sharp {
  let img: Sharp;
  let width: number | undefined;
  let height: number | undefined;
  if (typeof input === 'string' || Buffer.isBuffer(input)) {
    img = sharp(input, { failOn: 'error' }).rotate();
  } else {
    img = sharp(input.data, {
      raw: { width: input.width, height: input.height, channels: input.channels as 1 | 2 | 3 | 4 },
    });
    width = input.width;
    height = input.height;
  }
  if (crop) {
    const left = Math.max(0, Math.floor(crop.x));
    const top = Math.max(0, Math.floor(crop.y));
    let w = Math.max(1, Math.round(crop.w));
    let h = Math.max(1, Math.round(crop.h));
    if (width !== undefined && height !== undefined) {
      w = Math.max(1, Math.min(w, width - left));
      h = Math.max(1, Math.min(h, height - top));
    }
    img = img.extract({ left, top, width: w, height: h });
  }
  return img;
}
