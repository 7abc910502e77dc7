// Image -> network input. sharp decodes, applies the EXIF orientation (.rotate()) so boxes come out in the
// image as displayed, and resizes so the long side is `inputSize` (never enlarging: the model was trained
// on products 20..300 px tall, and blowing a small image up would push them out of that range; only the
// detector's zoomed pass over a photo of very small products enlarges, through `render`). The
// network needs sides that are multiples of 32, so the resized image is padded at the right and bottom.
import sharp, { type Sharp, type SharpOptions } from 'sharp';
import type { RawPixels } from '../raw-pixels.js';

export type DetectorInput = Buffer | string | RawPixels;

export type Prepared = {
  /** NCHW float32 RGB 0..255, padded */
  tensor: Float32Array;
  inputWidth: number;
  inputHeight: number;
  /** original image size, after EXIF orientation */
  width: number;
  height: number;
  /** input pixels per original pixel */
  scale: number;
};

export class DetectorInputError extends Error {
  override name = 'DetectorInputError';
}

const ALIGN = 32;
const PAD_VALUE = 127;
// sharp's own default, stated so a "huge image" fails with our message rather than a surprise.
const MAX_INPUT_PIXELS = 268_402_689;

function open(input: DetectorInput): Sharp {
  const opts: SharpOptions = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' };
  if (typeof input === 'string' || Buffer.isBuffer(input)) return sharp(input, opts);
  const { width, height, channels } = rawShape(input);
  const { data } = input;
  return sharp(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { ...opts, raw: { width, height, channels } });
}

/** Raw pixels' shape as sharp takes it, or an error saying what is wrong with them (inputError words it). */
function rawShape(raw: RawPixels): { width: number; height: number; channels: 1 | 2 | 3 | 4 } {
  const width = raw?.width;
  const height = raw?.height;
  const channels = raw?.channels;
  // A Buffer is a Uint8Array; callers outside TypeScript may pass anything.
  if (!((raw?.data as unknown) instanceof Uint8Array)) throw new Error('no pixel data');
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) throw new Error(`size ${width}x${height}`);
  if (!(channels === 1 || channels === 2 || channels === 3 || channels === 4)) throw new Error(`${channels} channels`);
  if (raw.data.length !== width * height * channels) throw new Error(`${raw.data.length} bytes for ${width}x${height}x${channels}`);
  return { width, height, channels };
}

export async function prepare(input: DetectorInput, inputSize: number): Promise<Prepared> {
  const { width, height } = await probe(input);
  return render(input, width, height, Math.min(1, inputSize / Math.max(width, height)));
}

/** The image's size as displayed (after its EXIF orientation). */
async function probe(input: DetectorInput): Promise<{ width: number; height: number }> {
  try {
    const meta = await open(input).metadata();
    const width = meta.autoOrient?.width ?? meta.width;
    const height = meta.autoOrient?.height ?? meta.height;
    if (!width || !height) throw new Error('no image size');
    return { width, height };
  } catch (err) {
    throw inputError(input, err);
  }
}

/** The network input for the image resized by `scale` (the detector's zoomed pass may enlarge). */
export async function render(input: DetectorInput, width: number, height: number, scale: number): Promise<Prepared> {
  try {
    const w = Math.max(1, Math.round(width * scale));
    const h = Math.max(1, Math.round(height * scale));
    const inputWidth = Math.ceil(w / ALIGN) * ALIGN;
    const inputHeight = Math.ceil(h / ALIGN) * ALIGN;
    const { data } = await open(input)
      .rotate()
      .removeAlpha()
      .toColourspace('srgb')
      .resize(w, h, { fit: 'fill', kernel: 'lanczos3' })
      .extend({ right: inputWidth - w, bottom: inputHeight - h, background: { r: PAD_VALUE, g: PAD_VALUE, b: PAD_VALUE } })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const plane = inputWidth * inputHeight;
    const tensor = new Float32Array(3 * plane);
    for (let i = 0, p = 0; p < plane; p++, i += 3) {
      tensor[p] = data[i];
      tensor[plane + p] = data[i + 1];
      tensor[2 * plane + p] = data[i + 2];
    }
    return { tensor, inputWidth, inputHeight, width, height, scale: w / width };
  } catch (err) {
    throw inputError(input, err);
  }
}

function inputError(input: DetectorInput, err: unknown): DetectorInputError {
  const what = typeof input === 'string' ? input : Buffer.isBuffer(input) ? 'image buffer' : 'raw image';
  return new DetectorInputError(`cannot read ${what}: ${(err as Error).message}`, { cause: err });
}
