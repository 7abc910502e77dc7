// A decoded image in memory: the one shape every stage of the analysis passes pixels in (the pipeline
// decodes a shelf photo once; the detectors, the identifier, the OCR and the barcode reader cut from it).
// Interleaved 8-bit channels, rows top to bottom, after the photo's EXIF orientation.

export interface RawPixels {
  data: Uint8Array;
  width: number;
  height: number;
  channels: number;
}

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
