// Checks of a shelf photo's quality, as plain functions: what is measured from the pixels (sharpness,
// exposure, glare, tilt and converging shelf edges, a perceptual hash), what is judged from the
// detector's boxes (distance, coverage, no shelf), and each measure against its threshold as an issue
// an auditor can act on. Pixel measures need one small decode with sharp and a few passes of plain
// JavaScript (no OpenCV, no model), so they are cheap enough for the upload's own answer.
import sharp from 'sharp';
import type { Static } from 'typebox';
import {
  ISSUE_CODES,
  QUALITY_THRESHOLD_RANGES,
  type PhotoQuality as PhotoQualitySchema,
  type QualityIssue as QualityIssueSchema,
  type QualityThresholds as QualityThresholdsSchema,
} from '../schemas/quality.js';

/** The long side, in pixels, the pixel checks work at: measures are comparable across camera sizes. */
export const WORKING_SIZE = 1024;
/** Below this many pixels on the short side a photo cannot show a shelf's products legibly. */
export const MIN_SHORT_SIDE = 480;

export interface PixelMeasures {
  /** Displayed size (EXIF orientation applied). */
  width: number;
  height: number;
  /** Variance of the second derivative in the blurrier of x and y, grey image at WORKING_SIZE (sharpnessOf). */
  sharpness: number;
  /** Mean luma, 0-255. */
  brightness: number;
  /** Share of pixels at luma >= 250, 0-1. */
  clipped: number;
  /** Largest connected patch of bright, colourless pixels away from the top and bottom edges, thin lines opened away (openMask), share of the photo, 0-1. */
  glare: number;
  /** Angle of the dominant near-horizontal lines (shelf edges), degrees; positive = clockwise. */
  tilt: number;
  /** Difference between the shelf-edge angles in the top and the bottom third, degrees. */
  convergence: number;
  /** 64-bit difference hash (16 hex digits) of the grey photo. */
  hash: string;
  /** Mean luma of 128 columns, normalised: two photos' profiles give their overlap (estimateOverlap). */
  profile: number[];
}

/** The thresholds every check compares against (the settings schema's); `docs/recognition.md`, "Photo quality". */
export type QualityThresholds = Static<typeof QualityThresholdsSchema>;

/**
 * Defaults chosen on one half of the labelled set (`npm run bench -- quality`; docs/recognition.md,
 * "Photo quality"). max_clipped, max_cut_products and the overlap limits are not chosen on data: the
 * set has no defect that isolates them.
 */
export const DEFAULT_THRESHOLDS: QualityThresholds = {
  min_sharpness: 50,
  min_brightness: 83,
  max_brightness: 160,
  max_clipped: 0.08,
  max_glare: 0.01,
  max_tilt: 3.8,
  max_convergence: 5.3,
  min_product_size: 0.026,
  max_product_height: 0.106,
  max_cut_products: 0.3,
  min_edge_room: 0.9,
  max_side_cut: 0.87,
  min_side_room: 1.18,
  max_duplicate_distance: 11,
  min_overlap: 0.1,
  max_overlap: 0.7,
};

/** Each threshold's accepted range (the settings schema's, so a value outside it is a 400 naming the field). */
export const THRESHOLD_RANGES: Record<keyof QualityThresholds, { minimum: number; maximum: number; description: string }> = QUALITY_THRESHOLD_RANGES;

// The quality answered by uploads, /recognize and the visit's quality: the schemas' types.
export type IssueCode = (typeof ISSUE_CODES)[number];
export type QualityIssue = Static<typeof QualityIssueSchema>;
export type Severity = QualityIssue['severity'];
/** fine: no issue; check: issues worth a look; retake: at least one issue that spoils the photo. */
export type PhotoQuality = Static<typeof PhotoQualitySchema>;

function round(v: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

/**
 * Measures a photo from its file or bytes: decoded once at WORKING_SIZE (shrink-on-load makes a 12 MP
 * JPEG cheap), EXIF-rotated, in 8-bit sRGB whatever it was stored as (grey, 16-bit, CMYK, alpha).
 */
export async function measurePhoto(source: string | Buffer): Promise<PixelMeasures> {
  const meta = await sharp(source, { limitInputPixels: false }).metadata();
  const rotated = (meta.orientation ?? 1) >= 5;
  const width = (rotated ? meta.height : meta.width) ?? 0;
  const height = (rotated ? meta.width : meta.height) ?? 0;
  const { data, info } = await sharp(source, { limitInputPixels: false })
    .rotate()
    .resize(WORKING_SIZE, WORKING_SIZE, { fit: 'inside', withoutEnlargement: true, kernel: 'linear' })
    .flatten({ background: '#808080' })
    .toColourspace('srgb')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return { width, height, ...(await measurePixelsYielding(data, info.width, info.height, info.channels)) };
}

/** The measures of decoded 8-bit pixels (1 to 4 channels, the first three RGB when there are three or more). */
export function measurePixels(rgb: Uint8Array, w: number, h: number, channels: number): Omit<PixelMeasures, 'width' | 'height'> {
  const steps = measureSteps(rgb, w, h, channels);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * The same, pausing between passes so that requests waiting on the event loop are served: these run
 * on the server's main thread while an upload is answered, and no pass holds it for long.
 */
async function measurePixelsYielding(rgb: Uint8Array, w: number, h: number, channels: number): Promise<Omit<PixelMeasures, 'width' | 'height'>> {
  const steps = measureSteps(rgb, w, h, channels);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function* measureSteps(rgb: Uint8Array, w: number, h: number, channels: number): Generator<void, Omit<PixelMeasures, 'width' | 'height'>> {
  const n = w * h;
  const grey = new Float32Array(n);
  const colourless = new Uint8Array(n);
  let sum = 0;
  let clipped = 0;
  for (let i = 0, p = 0; i < n; i++, p += channels) {
    const r = rgb[p];
    const g = channels >= 3 ? rgb[p + 1] : r;
    const b = channels >= 3 ? rgb[p + 2] : r;
    const y = 0.299 * r + 0.587 * g + 0.114 * b;
    grey[i] = y;
    sum += y;
    if (y >= 245) {
      if (y >= 250) clipped++;
      const hi = r > g ? (r > b ? r : b) : g > b ? g : b;
      const lo = r < g ? (r < b ? r : b) : g < b ? g : b;
      if (hi - lo <= 25) colourless[i] = 1;
    }
  }
  yield;
  const { tilt, convergence } = shelfAngles(grey, w, h);
  yield;
  const sharpness = round(sharpnessOf(grey, w, h), 1);
  yield;
  const glare = round(largestPatch(openMask(colourless, w, h, glareOpening(w, h)), w) / Math.max(1, n), 4);
  return {
    sharpness,
    brightness: round(sum / Math.max(1, n), 1),
    clipped: round(clipped / Math.max(1, n), 4),
    glare,
    tilt: round(tilt, 2),
    convergence: round(convergence, 2),
    hash: differenceHash(grey, w, h),
    profile: columnProfile(grey, w, h),
  };
}

/**
 * Sharpness: the variance of the second derivative along x and along y (the two halves of the
 * Laplacian), the smaller of the two. Motion blur smears one direction only and leaves the full
 * Laplacian high on the edges along it (shelf boards, label lines); the weaker direction catches it.
 */
export function sharpnessOf(grey: Float32Array, w: number, h: number): number {
  if (w < 3 || h < 3) return 0;
  let sx = 0, sx2 = 0, sy = 0, sy2 = 0, count = 0;
  for (let y = 1; y < h - 1; y++) {
    const row = y * w;
    for (let x = 1; x < w - 1; x++) {
      const i = row + x;
      const dxx = grey[i - 1] + grey[i + 1] - 2 * grey[i];
      const dyy = grey[i - w] + grey[i + w] - 2 * grey[i];
      sx += dxx; sx2 += dxx * dxx; sy += dyy; sy2 += dyy * dyy;
      count++;
    }
  }
  const vx = sx2 / count - (sx / count) ** 2;
  const vy = sy2 / count - (sy / count) ** 2;
  return Math.min(vx, vy);
}

/**
 * Glare that hides products is a solid bright area; white fixtures are thin: a shelf lip, the paper of
 * a price label between its lines of print, a pack's border. In a close view of a shelf they cover more
 * than max_glare of the photo (the exam's shelf scenes: 1.1-2.3 %) though no part of them is thick. The
 * mask is opened (eroded, then dilated) with a square whose side is this share of the photo's size
 * (sqrt(w h)): about half the smallest product the too-far check accepts (0.026), so whatever is
 * thinner could not hide a product, and a patch that could keeps its area (docs/recognition.md).
 */
export const GLARE_MIN_THICKNESS = 0.0125;

/** The opening's half side in pixels for a photo measured at w x h (at least 1: a 3 px square). */
function glareOpening(w: number, h: number): number {
  return Math.max(1, Math.round((GLARE_MIN_THICKNESS * Math.sqrt(w * h) - 1) / 2));
}

/**
 * Morphological opening of a 0/1 mask with a (2r+1) square, as four passes along rows and columns:
 * erosion keeps a pixel whose whole window is set, dilation (the erosion of the unset pixels) sets one
 * with any set pixel in its window. Windows are cut at the photo's sides, so a patch at a side keeps
 * its size. O(pixels) per pass: each pass reads the run of equal pixels ending at each place.
 * (Why not a library: one mask a photo, and sharp's erode/dilate would mean a second decode.)
 */
export function openMask(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const eroded = columnPass(rowPass(mask, w, h, r, 1), w, h, r, 1);
  // Most photos have no solid bright patch at all: nothing to grow back.
  if (!eroded.includes(1)) return eroded;
  return columnPass(rowPass(eroded, w, h, r, 0), w, h, r, 0);
}

/** One pass along the rows: a pixel becomes `keep` when every pixel within r along its row is `keep`. */
function rowPass(src: Uint8Array, w: number, h: number, r: number, keep: 0 | 1): Uint8Array {
  const out = new Uint8Array(src.length).fill(keep ? 0 : 1);
  const run = new Int32Array(w);
  for (let y = 0; y < h; y++) {
    const base = y * w;
    let count = 0;
    let any = false;
    for (let x = 0; x < w; x++) {
      count = src[base + x] === keep ? count + 1 : 0;
      run[x] = count;
      if (count > r) any = true;
    }
    if (!any && w > 2 * r) continue; // no run long enough to keep anything in this row
    for (let x = 0; x < w; x++) {
      const hi = x + r < w ? x + r : w - 1;
      const lo = x - r > 0 ? x - r : 0;
      if (run[hi] >= hi - lo + 1) out[base + x] = keep;
    }
  }
  return out;
}

/**
 * The same along the columns, walked row by row (memory order): the run of `keep` pixels ending at row
 * y + r in each column decides row y, so one row of runs is all that is kept.
 */
function columnPass(src: Uint8Array, w: number, h: number, r: number, keep: 0 | 1): Uint8Array {
  const out = new Uint8Array(src.length).fill(keep ? 0 : 1);
  const run = new Int32Array(w);
  const decide = (y: number, hi: number) => {
    const need = hi - (y - r > 0 ? y - r : 0) + 1;
    const base = y * w;
    for (let x = 0; x < w; x++) if (run[x] >= need) out[base + x] = keep;
  };
  for (let row = 0; row < h; row++) {
    const base = row * w;
    for (let x = 0; x < w; x++) run[x] = src[base + x] === keep ? run[x] + 1 : 0;
    if (row - r >= 0) decide(row - r, row);
  }
  for (let y = Math.max(0, h - r); y < h; y++) decide(y, h - 1);
  return out;
}

/**
 * Area (pixels) of the largest 4-connected patch of set pixels that touches neither the top nor the
 * bottom row: a white floor or ceiling lights run into those edges, a reflection on a cooler door or
 * on packs sits within the shelf.
 */
function largestPatch(mask: Uint8Array, w: number): number {
  const seen = new Uint8Array(mask.length);
  const stack = new Int32Array(mask.length);
  const lastRow = mask.length - w;
  let best = 0;
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || seen[start]) continue;
    let top = 0;
    let area = 0;
    let edge = false;
    stack[top++] = start;
    seen[start] = 1;
    while (top > 0) {
      const i = stack[--top];
      area++;
      if (i < w || i >= lastRow) edge = true;
      const x = i % w;
      if (x > 0 && mask[i - 1] && !seen[i - 1]) { seen[i - 1] = 1; stack[top++] = i - 1; }
      if (x < w - 1 && mask[i + 1] && !seen[i + 1]) { seen[i + 1] = 1; stack[top++] = i + 1; }
      if (i >= w && mask[i - w] && !seen[i - w]) { seen[i - w] = 1; stack[top++] = i - w; }
      if (i + w < mask.length && mask[i + w] && !seen[i + w]) { seen[i + w] = 1; stack[top++] = i + w; }
    }
    if (!edge && area > best) best = area;
  }
  return best;
}

const ANGLE_RANGE = 30; // degrees either side of horizontal that count as a shelf edge
const ANGLE_STEP = 0.5;

/**
 * The angle of the dominant near-horizontal straight lines: a Hough transform restricted to edge
 * pixels whose gradient is near vertical, each voting only near its own orientation. Long shelf edges
 * collect their votes in one accumulator cell, label texture spreads them, so the angle whose
 * accumulator is most concentrated (sum of squares) is the shelves'. Worked at half WORKING_SIZE.
 */
function shelfAngles(grey: Float32Array, w: number, h: number): { tilt: number; convergence: number } {
  // Halve the image: Hough votes grow with pixels, and shelf edges survive the reduction.
  const hw = Math.floor(w / 2);
  const hh = Math.floor(h / 2);
  if (hw < 16 || hh < 16) return { tilt: 0, convergence: 0 };
  const small = new Float32Array(hw * hh);
  for (let y = 0; y < hh; y++) {
    for (let x = 0; x < hw; x++) {
      const i = 2 * y * w + 2 * x;
      small[y * hw + x] = (grey[i] + grey[i + 1] + grey[i + w] + grey[i + w + 1]) / 4;
    }
  }
  const nAngles = Math.round((2 * ANGLE_RANGE) / ANGLE_STEP) + 1;
  const diag = Math.ceil(Math.hypot(hw, hh));
  const cos = new Float32Array(nAngles);
  const sin = new Float32Array(nAngles);
  for (let a = 0; a < nAngles; a++) {
    // A line at angle t (from horizontal) has its normal at t + 90 degrees.
    const t = ((-ANGLE_RANGE + a * ANGLE_STEP + 90) * Math.PI) / 180;
    cos[a] = Math.cos(t);
    sin[a] = Math.sin(t);
  }
  const bands = [new Float32Array(nAngles * 2 * diag), new Float32Array(nAngles * 2 * diag), new Float32Array(nAngles * 2 * diag)];
  const window = Math.round(3 / ANGLE_STEP); // votes near the pixel's own orientation only
  const steep = Math.tan(((ANGLE_RANGE + 2) * Math.PI) / 180);
  // Every other row: a shelf edge crosses many rows, so half of them still votes it clearly, at half the cost.
  for (let y = 1; y < hh - 1; y += 2) {
    const band = bands[Math.min(2, Math.floor((3 * y) / hh))];
    for (let x = 1; x < hw - 1; x++) {
      const i = y * hw + x;
      const gx = small[i - hw + 1] + 2 * small[i + 1] + small[i + hw + 1] - small[i - hw - 1] - 2 * small[i - 1] - small[i + hw - 1];
      const gy = small[i + hw - 1] + 2 * small[i + hw] + small[i + hw + 1] - small[i - hw - 1] - 2 * small[i - hw] - small[i - hw + 1];
      // Cheap rejections first: weak gradients, and edges steeper than a shelf edge can be.
      if (gx * gx + gy * gy < 6400) continue;
      if (Math.abs(gx) > steep * Math.abs(gy)) continue;
      // The edge runs perpendicular to the gradient: a near-horizontal edge has a near-vertical gradient.
      let edge = (Math.atan2(gy, gx) * 180) / Math.PI - 90;
      while (edge > 90) edge -= 180;
      while (edge < -90) edge += 180;
      if (Math.abs(edge) > ANGLE_RANGE + 2) continue;
      const centre = Math.round((edge + ANGLE_RANGE) / ANGLE_STEP);
      for (let a = Math.max(0, centre - window); a <= Math.min(nAngles - 1, centre + window); a++) {
        const rho = Math.round(x * cos[a] + y * sin[a]) + diag;
        band[a * 2 * diag + rho] += 1;
      }
    }
  }
  const peak = (acc: Float32Array): { angle: number; strength: number } => {
    let best = 0;
    let bestA = Math.floor(nAngles / 2);
    for (let a = 0; a < nAngles; a++) {
      let s = 0;
      const base = a * 2 * diag;
      for (let r = 0; r < 2 * diag; r++) s += acc[base + r] * acc[base + r];
      if (s > best) { best = s; bestA = a; }
    }
    return { angle: -ANGLE_RANGE + bestA * ANGLE_STEP, strength: best };
  };
  const top = peak(bands[0]);
  const bottom = peak(bands[2]);
  if (top.strength === 0 || bottom.strength === 0) {
    const whole = bands[0].map((v, i) => v + bands[1][i] + bands[2][i]);
    return { tilt: peak(whole).angle, convergence: 0 };
  }
  // Shot at an angle, the top shelves slope one way and the bottom ones the other: their mean is the
  // camera's roll, their difference the perspective.
  return { tilt: (top.angle + bottom.angle) / 2, convergence: Math.abs(top.angle - bottom.angle) };
}

/** 64-bit difference hash: 9x8 area means of the grey image, each bit "left brighter than right". */
export function differenceHash(grey: Float32Array, w: number, h: number): string {
  const cells = new Float64Array(72);
  const counts = new Float64Array(72);
  const column = new Int32Array(w);
  for (let x = 0; x < w; x++) column[x] = Math.min(8, Math.floor((x * 9) / w));
  for (let y = 0; y < h; y++) {
    const base = Math.min(7, Math.floor((y * 8) / h)) * 9;
    const row = y * w;
    for (let x = 0; x < w; x++) {
      cells[base + column[x]] += grey[row + x];
      counts[base + column[x]]++;
    }
  }
  let hex = '';
  for (let row = 0; row < 8; row++) {
    let byte = 0;
    for (let col = 0; col < 8; col++) {
      const a = cells[row * 9 + col] / Math.max(1, counts[row * 9 + col]);
      const b = cells[row * 9 + col + 1] / Math.max(1, counts[row * 9 + col + 1]);
      byte = (byte << 1) | (a > b ? 1 : 0);
    }
    hex += byte.toString(16).padStart(2, '0');
  }
  return hex;
}

export function hashDistance(a: string, b: string): number {
  let d = 0;
  for (let i = 0; i < 16; i += 2) {
    let x = parseInt(a.slice(i, i + 2), 16) ^ parseInt(b.slice(i, i + 2), 16);
    while (x) { d += x & 1; x >>= 1; }
  }
  return d;
}

const PROFILE_SAMPLES = 128;

/** Mean luma of each of PROFILE_SAMPLES columns, normalised to zero mean and unit deviation. */
function columnProfile(grey: Float32Array, w: number, h: number): number[] {
  const out = new Array<number>(PROFILE_SAMPLES).fill(0);
  const counts = new Array<number>(PROFILE_SAMPLES).fill(0);
  const column = new Int32Array(w);
  for (let x = 0; x < w; x++) column[x] = Math.min(PROFILE_SAMPLES - 1, Math.floor((x * PROFILE_SAMPLES) / w));
  const sums = new Float64Array(w);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) sums[x] += grey[row + x];
  }
  for (let x = 0; x < w; x++) {
    out[column[x]] += sums[x];
    counts[column[x]] += h;
  }
  for (let c = 0; c < PROFILE_SAMPLES; c++) out[c] /= Math.max(1, counts[c]);
  const mean = out.reduce((a, b) => a + b, 0) / PROFILE_SAMPLES;
  const sd = Math.sqrt(out.reduce((a, b) => a + (b - mean) ** 2, 0) / PROFILE_SAMPLES) || 1;
  return out.map((v) => round((v - mean) / sd, 3));
}

/**
 * How much of `previous` the `next` photo repeats, 0-1, for photos taken left to right: the shift
 * whose column profiles agree best (Pearson correlation over at least 10 % of the width). The overlap
 * is 1 - shift; with nothing in common (no shift correlates above 0.5) it is 0.
 */
export function estimateOverlap(previous: readonly number[], next: readonly number[]): number {
  const n = Math.min(previous.length, next.length);
  let bestShift = n;
  let bestCorr = 0.5;
  for (let shift = 0; shift <= Math.floor(n * 0.9); shift++) {
    const len = n - shift;
    let sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
    for (let i = 0; i < len; i++) {
      const a = previous[i + shift];
      const b = next[i];
      sa += a; sb += b; saa += a * a; sbb += b * b; sab += a * b;
    }
    const cov = sab / len - (sa / len) * (sb / len);
    const va = saa / len - (sa / len) ** 2;
    const vb = sbb / len - (sb / len) ** 2;
    const corr = va > 1e-9 && vb > 1e-9 ? cov / Math.sqrt(va * vb) : 0;
    if (corr > bestCorr + 0.02) { bestCorr = corr; bestShift = shift; }
  }
  return round(1 - bestShift / n, 3);
}

/** The issues of a photo's pixel measures. */
export function judgePixels(m: PixelMeasures, t: QualityThresholds): QualityIssue[] {
  const issues: QualityIssue[] = [];
  const short = Math.min(m.width, m.height);
  if (short < MIN_SHORT_SIDE) {
    issues.push({
      code: 'too_small', severity: 'retake', value: `${m.width}x${m.height}`, threshold: MIN_SHORT_SIDE,
      message: `The photo is only ${m.width} x ${m.height} pixels: products cannot be identified. Retake it at the camera's full resolution.`,
    });
  }
  if (m.sharpness < t.min_sharpness) {
    issues.push({
      code: 'blur', severity: 'retake', value: m.sharpness, threshold: t.min_sharpness,
      message: 'The photo is blurred: hold the camera still, let it focus on the shelf, and retake it.',
    });
  }
  if (m.brightness < t.min_brightness) {
    issues.push({ code: 'too_dark', severity: 'retake', value: m.brightness, threshold: t.min_brightness, message: 'The photo is too dark: turn on the aisle lights or the flash and retake it.' });
  } else if (m.brightness > t.max_brightness) {
    issues.push({ code: 'too_bright', severity: 'retake', value: m.brightness, threshold: t.max_brightness, message: 'The photo is overexposed: move out of direct light or tap the shelf to set the exposure, and retake it.' });
  } else if (m.clipped > t.max_clipped) {
    issues.push({ code: 'clipped_highlights', severity: 'check', value: m.clipped, threshold: t.max_clipped, message: 'Parts of the photo are burnt out white: check that the labels are readable, or retake with less light on the shelf.' });
  }
  if (m.glare > t.max_glare && m.brightness <= t.max_brightness) {
    issues.push({ code: 'glare', severity: 'check', value: m.glare, threshold: t.max_glare, message: 'A glare patch hides products (a reflection on a cooler door or shiny packs): step sideways or change the angle and retake it.' });
  }
  if (Math.abs(m.tilt) > t.max_tilt) {
    issues.push({ code: 'tilt', severity: 'check', value: m.tilt, threshold: t.max_tilt, message: `The camera is tilted by ${Math.abs(m.tilt).toFixed(0)} degrees: hold it level with the shelf edges and retake it.` });
  }
  if (m.convergence > t.max_convergence) {
    issues.push({ code: 'perspective', severity: 'check', value: m.convergence, threshold: t.max_convergence, message: 'The photo is taken at an angle (shelf edges converge): stand square in front of the bay and retake it.' });
  }
  return issues;
}

/** A detected product box in the photo's pixels (top-left corner, size). */
export interface Box { x: number; y: number; w: number; h: number }

/**
 * The issues of a photo's detected products: none (no shelf), too small (too far), cut at the top or
 * bottom or too few shelves (too close), and shelves cut by the bay's end side. `ends` says which side
 * of this photo is a bay end (a single photo: both; the first of a scene: left; the last: right).
 */
export function judgeBoxes(
  boxes: readonly Box[],
  size: { width: number; height: number },
  t: QualityThresholds,
  ends: { left: boolean; right: boolean } = { left: true, right: true },
): QualityIssue[] {
  if (boxes.length === 0) {
    return [{ code: 'no_products', severity: 'retake', value: 0, threshold: null, message: 'No products were found in the photo: point the camera at the shelf and retake it.' }];
  }
  const issues: QualityIssue[] = [];
  const heights = boxes.map((b) => b.h / size.height).sort((a, b) => a - b);
  const median = heights[Math.floor(heights.length / 2)];
  const productSize = productSizeOf(boxes, size);
  if (productSize < t.min_product_size) {
    issues.push({ code: 'too_far', severity: 'retake', value: round(productSize, 4), threshold: t.min_product_size, message: 'Products are too small to identify: step closer so the shelf fills the photo, and retake it.' });
  }
  const margin = 0.01;
  const cut = boxes.filter((b) => b.y <= margin * size.height || b.y + b.h >= (1 - margin) * size.height).length / boxes.length;
  const room = edgeRoom(boxes, size.height, median * size.height);
  const closeMessage = 'Too close: products are large or cut at the top or bottom of the photo. Step back so whole shelves are in the photo.';
  if (median > t.max_product_height) {
    issues.push({ code: 'too_close', severity: 'check', value: round(median, 4), threshold: t.max_product_height, message: closeMessage });
  } else if (room < t.min_edge_room) {
    issues.push({ code: 'too_close', severity: 'check', value: round(room, 3), threshold: t.min_edge_room, message: closeMessage });
  } else if (cut > t.max_cut_products) {
    issues.push({ code: 'too_close', severity: 'check', value: round(cut, 3), threshold: t.max_cut_products, message: closeMessage });
  }
  if (ends.left || ends.right) {
    const endMessage = 'The end of the bay is cut off: include the bay\'s side panel in the photo, or add a photo of the rest.';
    const widths = boxes.map((b) => b.w).sort((a, b) => a - b);
    const sides = sideRoom(boxes, size.width, widths[Math.floor(widths.length / 2)]);
    const rooms = [...(ends.left ? [sides.left] : []), ...(ends.right ? [sides.right] : [])];
    const least = Math.min(...rooms);
    if (least < t.min_side_room) {
      issues.push({ code: 'bay_end_cut', severity: 'check', value: round(least, 3), threshold: t.min_side_room, message: endMessage });
    } else {
      const shelves = shelfRows(boxes);
      let sideCut = 0;
      for (const row of shelves) {
        const left = Math.min(...row.map((b) => b.x));
        const right = Math.max(...row.map((b) => b.x + b.w));
        if ((ends.left && left <= margin * size.width) || (ends.right && right >= (1 - margin) * size.width)) sideCut++;
      }
      const share = shelves.length > 0 ? sideCut / shelves.length : 0;
      if (share > t.max_side_cut) {
        issues.push({ code: 'bay_end_cut', severity: 'check', value: round(share, 3), threshold: t.max_side_cut, message: endMessage });
      }
    }
  }
  return issues;
}

/**
 * The median product's size against the photo's: the square root of its box's area over that of the
 * photo. Too far is products with too few pixels to identify, and that is their area: by height alone a
 * shelf of packs lying flat (toothpaste, tea) looks as far as a photo shrunk to a third, while its packs
 * are as large in pixels as those of an ordinary photo (docs/recognition.md, "Photo quality").
 */
export function productSizeOf(boxes: readonly Box[], size: { width: number; height: number }): number {
  if (boxes.length === 0 || size.width <= 0 || size.height <= 0) return 0;
  const sides = boxes.map((b) => Math.sqrt(Math.max(0, b.w) * Math.max(0, b.h))).sort((a, b) => a - b);
  return sides[Math.floor(sides.length / 2)] / Math.sqrt(size.width * size.height);
}

/**
 * The room left above or below the products (the larger), in median product heights: a photo taken
 * from far enough shows the top of the bay or the floor; one taken too close has products running into
 * both its top and bottom edges. Each edge's room ends at the first row of products: the first two boxes
 * side by side whose edges at that side lie within half a product height of each other (rows as
 * shelfRows groups them). A stray box (a ceiling light, a sign above the bay) is one box, or two for
 * one thing, and is passed over; a row of packs cut by the edge counts however few of them the detector
 * found (a dense shelf's cut top row is a handful of its hundreds of boxes, which a share of the boxes
 * would pass over). Products merely large
 * do not say it (a crop into a bay makes them only about 1.5x taller to the detector); products cut at
 * both ends do (docs/recognition.md, "Photo quality").
 */
export function edgeRoom(boxes: readonly Box[], height: number, productHeight: number): number {
  if (boxes.length === 0 || productHeight <= 0) return Infinity;
  const fromTop = boxes.map((b) => ({ d: b.y, b })).sort((p, q) => p.d - q.d);
  const fromBottom = boxes.map((b) => ({ d: height - (b.y + b.h), b })).sort((p, q) => p.d - q.d);
  return Math.max(firstRow(fromTop, productHeight / 2), firstRow(fromBottom, productHeight / 2)) / productHeight;
}

/**
 * The distance from an edge of the first row of boxes: the nearest box that another box, side by side
 * with it, lies within `within` of (ascending distances). Two boxes overlapping by more than half the
 * narrower's width are the detector's two answers for one thing (a sign, a pack), not a row. With no
 * row, the nearest box.
 */
function firstRow(edges: readonly { d: number; b: Box }[], within: number): number {
  for (let i = 0; i < edges.length; i++) {
    const a = edges[i].b;
    for (let j = i + 1; j < edges.length && edges[j].d - edges[i].d <= within; j++) {
      const b = edges[j].b;
      const overlap = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
      if (overlap <= 0.5 * Math.min(a.w, b.w)) return edges[i].d;
    }
  }
  return edges[0].d;
}

/**
 * The room left beside the products at each side, in median product widths, taken at the box 5 % in
 * from that side (at least the second): a bay whose end is in the photo shows its side panel, an
 * upright or the aisle beyond the last facings; a bay cut off runs its products into the photo's side.
 */
export function sideRoom(boxes: readonly Box[], width: number, productWidth: number): { left: number; right: number } {
  if (boxes.length === 0 || productWidth <= 0) return { left: Infinity, right: Infinity };
  const k = Math.min(Math.max(1, Math.floor(0.05 * boxes.length)), boxes.length - 1);
  const lefts = boxes.map((b) => b.x).sort((a, b) => a - b);
  const rights = boxes.map((b) => b.x + b.w).sort((a, b) => b - a);
  return { left: lefts[k] / productWidth, right: (width - rights[k]) / productWidth };
}

/** Rows of boxes by bottom edge, as the shelves are found (recognition/shelves.ts), in plain form. */
function shelfRows(boxes: readonly Box[]): Box[][] {
  const sorted = [...boxes].sort((a, b) => a.y + a.h - (b.y + b.h));
  const heights = boxes.map((b) => b.h).sort((a, b) => a - b);
  const gap = heights[Math.floor(heights.length / 2)] / 2;
  const rows: Box[][] = [];
  for (const b of sorted) {
    const row = rows[rows.length - 1];
    if (row && b.y + b.h - (row[0].y + row[0].h) <= gap) row.push(b);
    else rows.push([b]);
  }
  return rows;
}

/** The issue of a photo that repeats an earlier one of the visit (hash distance within the threshold). */
export function judgeDuplicate(hash: string, earlier: readonly { id: string; hash: string }[], t: QualityThresholds): QualityIssue | null {
  let best: { id: string; d: number } | null = null;
  for (const e of earlier) {
    const d = hashDistance(hash, e.hash);
    if (d <= t.max_duplicate_distance && (!best || d < best.d)) best = { id: e.id, d };
  }
  if (!best) return null;
  return { code: 'duplicate', severity: 'check', value: best.d, threshold: t.max_duplicate_distance, message: `This photo repeats photo ${best.id} of this visit: remove one of them, or retake if a different bay was meant.` };
}

/** The issue of too little or too much overlap with the previous photo of a scene. */
export function judgeOverlap(overlap: number, t: QualityThresholds): QualityIssue | null {
  if (overlap < t.min_overlap) {
    return { code: 'overlap_low', severity: 'check', value: overlap, threshold: t.min_overlap, message: 'This photo barely overlaps the previous one: products between them may be missed. Retake it with the previous photo\'s right edge in view.' };
  }
  if (overlap > t.max_overlap) {
    return { code: 'overlap_high', severity: 'check', value: overlap, threshold: t.max_overlap, message: 'This photo mostly repeats the previous one: move further along the bay before taking the next photo.' };
  }
  return null;
}

/** A photo's quality from its issues. */
export function summarise(issues: readonly QualityIssue[]): PhotoQuality {
  const mark = issues.some((i) => i.severity === 'retake') ? 'retake' : issues.length > 0 ? 'check' : 'fine';
  return { ok: issues.length === 0, mark, issues: [...issues] };
}
