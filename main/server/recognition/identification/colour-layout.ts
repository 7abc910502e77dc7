// Where a pack's colours are: the mean CIELAB colour of each cell of a 4 x 6 grid (packs are taller
// than wide) over the image stretched to a square, as the embedding's input is. Look-alikes of one
// brand share their logo and print layout but not their colour patches (Special K Classic's blue side
// against Cioccolato Fondente's brown one), which the embedding and the local features barely see.
// Compared only between the few candidates that appearance leaves close (identifier.ts).
import type { RawPixels } from '../raw-pixels.js';

export const COLOUR_COLUMNS = 4;
export const COLOUR_ROWS = 6;
export const COLOUR_LEN = COLOUR_COLUMNS * COLOUR_ROWS * 3;

// sRGB (0..255) to linear light, tabulated once.
const LINEAR = new Float32Array(256).map((_, i) => {
  const c = i / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});

function f(t: number): number {
  return t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116;
}

/** L, a, b per cell, row by row; `rgb` has 3 or 4 channels (alpha ignored), any size. */
export function colourLayout(rgb: RawPixels): Float32Array {
  const { data, width: w, height: h, channels: c } = rgb;
  const sums = new Float64Array(COLOUR_LEN);
  const counts = new Float64Array(COLOUR_COLUMNS * COLOUR_ROWS);
  // At most ~64 samples per side: the cells' means need no more.
  const step = Math.max(1, Math.floor(Math.min(w, h) / 64));
  for (let y = 0; y < h; y += step) {
    const row = Math.min(COLOUR_ROWS - 1, Math.floor((y * COLOUR_ROWS) / h));
    for (let x = 0; x < w; x += step) {
      const p = (y * w + x) * c;
      const r = LINEAR[data[p]];
      const g = LINEAR[data[p + 1]];
      const b = LINEAR[data[p + 2]];
      const fx = f((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.9505);
      const fy = f(0.2126 * r + 0.7152 * g + 0.0722 * b);
      const fz = f((0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.089);
      const cell = row * COLOUR_COLUMNS + Math.min(COLOUR_COLUMNS - 1, Math.floor((x * COLOUR_COLUMNS) / w));
      sums[cell * 3] += 116 * fy - 16;
      sums[cell * 3 + 1] += 500 * (fx - fy);
      sums[cell * 3 + 2] += 200 * (fy - fz);
      counts[cell]++;
    }
  }
  const out = new Float32Array(COLOUR_LEN);
  for (let i = 0; i < COLOUR_LEN; i++) out[i] = counts[Math.floor(i / 3)] ? sums[i] / counts[Math.floor(i / 3)] : 0;
  return out;
}

/**
 * Mean CIELAB distance between corresponding cells (about 2-3 is "just noticeable"), with lightness
 * taken relative to each image's mean: a shelf is darker or brighter than a packshot's studio as a
 * whole, while the hue of a patch stays. Two facings of one pack are about 14-20 apart at shelf
 * resolution, different packs of one brand 20-30, unrelated packs 30-60.
 */
export function colourDistance(a: Float32Array, b: Float32Array): number {
  const cells = COLOUR_COLUMNS * COLOUR_ROWS;
  let la = 0;
  let lb = 0;
  for (let i = 0; i < cells; i++) {
    la += a[i * 3];
    lb += b[i * 3];
  }
  la /= cells;
  lb /= cells;
  let d = 0;
  for (let i = 0; i < cells; i++) {
    const dl = a[i * 3] - la - (b[i * 3] - lb);
    const da = a[i * 3 + 1] - b[i * 3 + 1];
    const db = a[i * 3 + 2] - b[i * 3 + 2];
    d += Math.sqrt(dl * dl + da * da + db * db);
  }
  return d / cells;
}
