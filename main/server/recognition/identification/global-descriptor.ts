// Global appearance descriptor of a product image: cheap to compute and compare, used to shortlist
// candidate SKUs before the (slower) local-feature verification. Three parts, each L2-normalised so
// that none dominates by scale:
//  - an HSV colour histogram (hue x saturation x value, plus grey bins for unsaturated pixels),
//    robust to pose and partial occlusion;
//  - a spatial colour layout (mean colour of a 4x4 grid, mean-centred), which tells apart packs
//    with the same colours in a different arrangement;
//  - gradient-orientation histograms over a 4x4 grid (a small HOG), which captures print and shape.
import type { RawPixels } from '../raw-pixels.js';

export const DESCRIPTOR_SIZE = 64; // the side the image is resampled to
const HUE_BINS = 12;
const SAT_BINS = 3;
const VAL_BINS = 3;
const GREY_BINS = 6;
const GRID = 4;
const ORIENT_BINS = 8;

export const HSV_LEN = HUE_BINS * SAT_BINS * VAL_BINS + GREY_BINS;
export const LAYOUT_LEN = GRID * GRID * 3;
export const HOG_LEN = GRID * GRID * ORIENT_BINS;
export const GLOBAL_LEN = HSV_LEN + LAYOUT_LEN + HOG_LEN;

/** Weights of the three parts in the similarity (tuned on the Grocery Store train/val split). */
export const PART_WEIGHTS = { hsv: 0.45, layout: 0.2, hog: 0.35 };

function normalise(v: Float32Array, from: number, to: number): void {
  let s = 0;
  for (let i = from; i < to; i++) s += v[i] * v[i];
  const n = Math.sqrt(s) || 1;
  for (let i = from; i < to; i++) v[i] /= n;
}

/** `rgb` is DESCRIPTOR_SIZE x DESCRIPTOR_SIZE, 3 channels. */
export function globalDescriptor(rgb: RawPixels): Float32Array {
  const { data, width: w, height: h, channels: c } = rgb;
  const out = new Float32Array(GLOBAL_LEN);
  const gray = new Float32Array(w * h);
  const cellW = w / GRID;
  const cellH = h / GRID;
  const cellCount = new Float32Array(GRID * GRID);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = (y * w + x) * c;
      const r = data[p] / 255;
      const g = data[p + 1] / 255;
      const b = data[p + 2] / 255;
      gray[y * w + x] = 0.299 * r + 0.587 * g + 0.114 * b;
      const max = Math.max(r, g, b);
      const min = Math.min(r, g, b);
      const d = max - min;
      const s = max === 0 ? 0 : d / max;
      if (s < 0.2 || max < 0.12) {
        out[HUE_BINS * SAT_BINS * VAL_BINS + Math.min(GREY_BINS - 1, Math.floor(max * GREY_BINS))] += 1;
      } else {
        let hue: number;
        if (max === r) hue = ((g - b) / d + 6) % 6;
        else if (max === g) hue = (b - r) / d + 2;
        else hue = (r - g) / d + 4;
        const hb = Math.min(HUE_BINS - 1, Math.floor((hue / 6) * HUE_BINS));
        const sb = Math.min(SAT_BINS - 1, Math.floor(((s - 0.2) / 0.8) * SAT_BINS));
        const vb = Math.min(VAL_BINS - 1, Math.floor(max * VAL_BINS));
        out[(hb * SAT_BINS + sb) * VAL_BINS + vb] += 1;
      }
      const cell = Math.min(GRID - 1, Math.floor(y / cellH)) * GRID + Math.min(GRID - 1, Math.floor(x / cellW));
      cellCount[cell] += 1;
      const lp = HSV_LEN + cell * 3;
      out[lp] += r;
      out[lp + 1] += g;
      out[lp + 2] += b;
    }
  }
  // Square-rooted histogram (Hellinger kernel): dampens the dominant background colour.
  for (let i = 0; i < HSV_LEN; i++) out[i] = Math.sqrt(out[i]);
  normalise(out, 0, HSV_LEN);
  let mean = 0;
  for (let i = 0; i < GRID * GRID; i++) {
    for (let k = 0; k < 3; k++) {
      out[HSV_LEN + i * 3 + k] /= cellCount[i] || 1;
      mean += out[HSV_LEN + i * 3 + k];
    }
  }
  mean /= LAYOUT_LEN;
  for (let i = HSV_LEN; i < HSV_LEN + LAYOUT_LEN; i++) out[i] -= mean;
  normalise(out, HSV_LEN, HSV_LEN + LAYOUT_LEN);

  const hog = HSV_LEN + LAYOUT_LEN;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const gx = gray[y * w + x + 1] - gray[y * w + x - 1];
      const gy = gray[(y + 1) * w + x] - gray[(y - 1) * w + x];
      const mag = Math.sqrt(gx * gx + gy * gy);
      if (mag === 0) continue;
      let ang = Math.atan2(gy, gx);
      if (ang < 0) ang += Math.PI;
      const ob = Math.min(ORIENT_BINS - 1, Math.floor((ang / Math.PI) * ORIENT_BINS));
      const cell = Math.min(GRID - 1, Math.floor(y / cellH)) * GRID + Math.min(GRID - 1, Math.floor(x / cellW));
      out[hog + cell * ORIENT_BINS + ob] += mag;
    }
  }
  for (let i = hog; i < GLOBAL_LEN; i++) out[i] = Math.sqrt(out[i]);
  normalise(out, hog, GLOBAL_LEN);
  return out;
}

/** Weighted cosine similarity in [-1, 1] (each part is unit length). */
export function globalSimilarity(a: Float32Array, b: Float32Array): number {
  let hsv = 0;
  let layout = 0;
  let hogS = 0;
  for (let i = 0; i < HSV_LEN; i++) hsv += a[i] * b[i];
  for (let i = HSV_LEN; i < HSV_LEN + LAYOUT_LEN; i++) layout += a[i] * b[i];
  for (let i = HSV_LEN + LAYOUT_LEN; i < GLOBAL_LEN; i++) hogS += a[i] * b[i];
  return PART_WEIGHTS.hsv * hsv + PART_WEIGHTS.layout * layout + PART_WEIGHTS.hog * hogS;
}
