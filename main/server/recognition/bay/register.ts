// Registers the photos of a scene to each other and to one bay frame (docs/recognition.md, "Bays").
// Photos are matched in pairs (ORB features on reduced grey copies, ratio test, RANSAC homography): a
// first pass ranks every pair on each photo's strongest features, the pairs ranked near a photo's best
// (all of a photo's pairs where its ranking is unclear) are matched in full, then pairs across parts
// not yet joined; so photos may come in any order and in rows. A pair's homography is then checked against what the photos
// show: it must be a plausible second shot (scale, rotation, perspective within limits, enough
// overlap), the product boxes of one photo must land on boxes of the other where they overlap, and on
// shelves of identical packs, where features match the neighbouring pack, the shift by one pack that
// makes the overlapping pixels agree best is taken. The accepted pairs form a graph; its largest
// connected part, joined along the strongest matches, is the bay. Every other photo is reported with
// the reason and counted as its own rack.
import { ratioMatches, type Descriptors } from '../hamming.js';
import type { OpenCv } from '../opencv.js';
import { iou } from '../detector/nms.js';
import { apply, IDENTITY, invert, mapBox, mul, scaling, translation, type Box, type H } from './homography.js';
import { median } from '../median.js';

export interface BayPhoto {
  image: string;
  /** Pixels of the photo as analysed (after EXIF rotation): the frame of its boxes. */
  width: number;
  height: number;
  /** The photo reduced to grey at matching size. */
  gray: Uint8Array;
  gw: number;
  gh: number;
  boxes: readonly (Box & { sku_id: string | null })[];
}

export type NotJoinedReason = 'no_features' | 'no_overlap' | 'wild_transform' | 'boxes_disagree' | 'other_part';

export interface BayPhotoJoin {
  image: string;
  joined: boolean;
  /** Photo pixels -> bay pixels, row-major 3x3; null when the photo is not joined. */
  transform: number[] | null;
  /** The photo it was registered against (null for the bay's reference photo and photos not joined). */
  joined_to: string | null;
  /** Share of this photo's area that overlaps the photo it was joined to. */
  overlap: number | null;
  reason: NotJoinedReason | null;
  /** In words, for the auditor ("Photo 3 could not be joined to photo 2: ..."). */
  message: string | null;
}

export interface BayRegistration {
  /** The bay frame's size: every joined photo lies inside it. */
  width: number;
  height: number;
  photos: BayPhotoJoin[];
  ms: number;
}

export interface BayHints {
  stackWidth?: number | null;
}

const ORB_FEATURES = 1600;
const TILES_X = 4;
const TILES_Y = 4;
const EDGE = 31; // ORB's border and patch size
const FAST_THRESHOLD = 12; // lower than ORB's 20: plain strips of a shelf still give features
const MIN_KEYPOINTS = 40;
const MIN_INLIERS = 15;
// The first pass that ranks each photo's likely neighbours: the 16 strongest features of each tile
// (256 a photo) matched against the other photo's 1600, a sixth of a full match, and the RANSAC inliers
// of those matches are the pair's rank.
const STRONGEST_PER_TILE = 16;
// A photo's pairs fully matched: those ranked within this share of its best pair (a row's two
// neighbours; a grid's four to eight)...
const RANK_SHARE = 0.25;
// ...when its best is clear; a photo whose best pair has fewer ranking inliers (another shelf, a plain
// photo, a shelf where every pair matches alike) has every pair matched, as all were before.
const RANK_CLEAR = 12;
const HYPOTHESES = 2; // per pair: the strongest RANSAC homography, then the one its outliers give
const RATIO = 0.8; // Lowe's ratio test: shelves repeat packs, so a little looser than the panorama's 0.75
const MIN_OVERLAP = 0.04;
const MAX_SCALE = 3; // between two photos of one bay
const MAX_ROTATION_DEG = 20;
const MAX_EDGE_RATIO = 1.6; // opposite edges of a photo mapped into its neighbour
const MIN_BOX_AGREEMENT = 0.4;
// True overlaps agree at 0.8 to 1 (bench: scale, slant and brightness changes between photos); a
// repeating shelf matched at the wrong repeat at about 0.6.
const MIN_PIXEL_AGREEMENT = 0.5;
const BANDS = 12; // columns and rows of a photo the overlap's agreement is also judged in
const PLAIN = 25; // grey variance under which a band is plain (a wall, a board)
// A repeating composed shelf one repeat off: the band holding the shelf's end 0.54 to 0.75 against
// 0.95 to 0.97 for the rest (a dip of 0.21 to 0.40); its true overlaps dip 0.05 to 0.13. The 12 real
// bench bays join as before with it (39/39, the same counts).
const MAX_DIP = 0.2;
const DIP_TOLERANCE = 0.1; // how much less the whole overlap may agree at a place without such a band

interface Features extends Descriptors {
  keypoints: number[]; // x, y at match scale
  /** The strongest few of each tile (by ORB's response), for ranking a photo's likely neighbours. */
  strongest: Descriptors & { keypoints: number[] };
}

interface Pair {
  a: number;
  b: number;
  /** b's pixels -> a's pixels (full size). */
  h: H | null;
  inliers: number;
  /** How well the overlapping grey pixels agree (normalised cross-correlation). */
  agreement: number;
  overlap: number;
  reason: NotJoinedReason | null;
}

/**
 * ORB features spread over the photo: detected tile by tile (each tile its share), so the overlap with
 * a neighbour, a strip along one edge that may be plain (a pillar, a price rail), has features of its
 * own instead of losing them all to the busiest part of the photo.
 */
function features(cv: OpenCv, p: BayPhoto): Features {
  const img = cv.matFromArray(p.gh, p.gw, cv.CV_8UC1, p.gray as unknown as number[]);
  const orb = new cv.ORB(Math.ceil(ORB_FEATURES / (TILES_X * TILES_Y)), 1.2, 8, EDGE, 0, 2, 0, 31, FAST_THRESHOLD);
  const keypoints: number[] = [];
  const rows: Uint8Array[] = [];
  const strongest: number[] = []; // indices into rows
  try {
    for (let ty = 0; ty < TILES_Y; ty++) {
      for (let tx = 0; tx < TILES_X; tx++) {
        // The tile with a margin the detector needs around a feature; features are kept in the core only.
        const cx0 = Math.floor((tx * p.gw) / TILES_X), cx1 = Math.floor(((tx + 1) * p.gw) / TILES_X);
        const cy0 = Math.floor((ty * p.gh) / TILES_Y), cy1 = Math.floor(((ty + 1) * p.gh) / TILES_Y);
        const x0 = Math.max(0, cx0 - EDGE), x1 = Math.min(p.gw, cx1 + EDGE);
        const y0 = Math.max(0, cy0 - EDGE), y1 = Math.min(p.gh, cy1 + EDGE);
        if (x1 - x0 < 2 * EDGE + 8 || y1 - y0 < 2 * EDGE + 8) continue;
        const roi = img.roi(new cv.Rect(x0, y0, x1 - x0, y1 - y0));
        const kps = new cv.KeyPointVector();
        const none = new cv.Mat();
        const desc = new cv.Mat();
        try {
          orb.detectAndCompute(roi, none, kps, desc);
          const tile: { row: number; response: number }[] = [];
          for (let i = 0; i < kps.size(); i++) {
            const kp = kps.get(i);
            const x = kp.pt.x + x0, y = kp.pt.y + y0;
            if (x < cx0 || x >= cx1 || y < cy0 || y >= cy1) continue;
            tile.push({ row: rows.length, response: kp.response });
            keypoints.push(x, y);
            rows.push(desc.data.slice(i * desc.cols, (i + 1) * desc.cols));
          }
          // Per tile, so an overlap strip keeps its share of the strongest as it keeps its features.
          tile.sort((u, v) => v.response - u.response || u.row - v.row);
          for (const t of tile.slice(0, STRONGEST_PER_TILE)) strongest.push(t.row);
        } finally {
          roi.delete(); kps.delete(); none.delete(); desc.delete();
        }
      }
    }
  } finally {
    orb.delete(); img.delete();
  }
  const cols = rows[0]?.length ?? 32;
  const descriptors = new Uint8Array(rows.length * cols);
  rows.forEach((r, i) => descriptors.set(r, i * cols));
  const few = new Uint8Array(strongest.length * cols);
  strongest.forEach((r, i) => few.set(rows[r], i * cols));
  const strongestKeypoints = strongest.flatMap((r) => [keypoints[r * 2], keypoints[r * 2 + 1]]);
  return { keypoints, count: rows.length, descriptors, strongest: { count: strongest.length, descriptors: few, keypoints: strongestKeypoints } };
}

/**
 * RANSAC homographies of b's match pixels into a's, with their inlier counts: the strongest, then the
 * one the matches left out of it give. On a shelf that repeats itself diagonally (each row the one above
 * shifted by some packs) the strongest can be a repeat off, with the true overlap's matches among the
 * outliers; the checks below refuse the repeat, and the second hypothesis is then judged in its turn.
 * Each is computed only when asked for: most pairs are settled by the first, and the second, fitted to
 * the few matches left over (mostly false ones), runs RANSAC to its last iteration (12 MP bench photos:
 * 16 to 64 ms of CPU a pair, against 1 to 12 ms for the first).
 */
function* hypotheses(cv: OpenCv, fa: Features, fb: Features): Generator<{ g: H; inliers: number }> {
  if (fa.count < MIN_KEYPOINTS || fb.count < MIN_KEYPOINTS) return;
  let { src, dst } = matchedPoints(fb, fa);
  for (let round = 0; round < HYPOTHESES && src.length / 2 >= MIN_INLIERS; round++) {
    const fit = ransac(cv, src, dst);
    if (!fit) break;
    yield { g: fit.g, inliers: fit.inliers };
    // The matches this hypothesis did not explain, for the next one.
    const keepSrc: number[] = [];
    const keepDst: number[] = [];
    for (let i = 0; i < src.length / 2; i++) {
      if (fit.mask[i]) continue;
      keepSrc.push(src[i * 2], src[i * 2 + 1]);
      keepDst.push(dst[i * 2], dst[i * 2 + 1]);
    }
    [src, dst] = [keepSrc, keepDst];
  }
}

/**
 * `query`'s features matched against a's with the ratio test (recognition/hamming.ts: OpenCV's
 * brute-force knnMatch and the test, exactly, at about an eighth of its CPU): the matched points,
 * query's in src, a's in dst.
 */
function matchedPoints(query: Descriptors & { keypoints: number[] }, fa: Features): { src: number[]; dst: number[] } {
  const pairs = ratioMatches(query, fa, RATIO);
  const src: number[] = [];
  const dst: number[] = [];
  for (let k = 0; k < pairs.length; k += 2) {
    const q = pairs[k];
    const t = pairs[k + 1];
    src.push(query.keypoints[q * 2], query.keypoints[q * 2 + 1]);
    dst.push(fa.keypoints[t * 2], fa.keypoints[t * 2 + 1]);
  }
  return { src, dst };
}

/** A RANSAC homography of the points src onto dst, its inlier count and mask; null when none fits. */
function ransac(cv: OpenCv, src: number[], dst: number[]): { g: H; inliers: number; mask: Uint8Array } | null {
  const ps = cv.matFromArray(src.length / 2, 1, cv.CV_32FC2, src);
  const pd = cv.matFromArray(dst.length / 2, 1, cv.CV_32FC2, dst);
  const mask = new cv.Mat();
  let h: ReturnType<OpenCv['findHomography']> | undefined;
  try {
    h = cv.findHomography(ps, pd, cv.RANSAC, 4, mask);
    if (h.empty()) return null;
    return { g: Array.from(h.data64F), inliers: cv.countNonZero(mask), mask: Uint8Array.from(mask.data) };
  } finally {
    h?.delete();
    mask.delete();
    pd.delete();
    ps.delete();
  }
}

/** Why `h` (b -> a, full pixels) is not a second shot of one bay, or null when it is plausible. */
export function implausible(h: H, b: { width: number; height: number }): boolean {
  const c = [apply(h, 0, 0), apply(h, b.width, 0), apply(h, b.width, b.height), apply(h, 0, b.height)];
  if (c.some((p) => p === null)) return true;
  const q = c as { x: number; y: number }[];
  // Convex and not mirrored: every turn of the mapped outline goes the same (clockwise) way.
  for (let i = 0; i < 4; i++) {
    const p0 = q[i], p1 = q[(i + 1) % 4], p2 = q[(i + 2) % 4];
    if ((p1.x - p0.x) * (p2.y - p1.y) - (p1.y - p0.y) * (p2.x - p1.x) <= 0) return true;
  }
  const len = (i: number) => Math.hypot(q[(i + 1) % 4].x - q[i].x, q[(i + 1) % 4].y - q[i].y);
  const [top, right, bottom, left] = [0, 1, 2, 3].map(len);
  const scale = Math.sqrt((top * right) / (b.width * b.height));
  if (!(scale > 1 / MAX_SCALE && scale < MAX_SCALE)) return true;
  if (Math.max(top / bottom, bottom / top, left / right, right / left) > MAX_EDGE_RATIO) return true;
  const angle = (Math.atan2(q[1].y - q[0].y, q[1].x - q[0].x) * 180) / Math.PI;
  if (Math.abs(angle) > MAX_ROTATION_DEG) return true;
  // Width against height, as the photo had them (a squeeze in one direction is no camera move).
  const aspect = (top + bottom) / (left + right) / (b.width / b.height);
  return aspect > 1.5 || aspect < 1 / 1.5;
}

/** Share of b's area that `h` (b -> a) puts inside a's frame, on a grid of points. */
function overlapShare(h: H, a: { width: number; height: number }, b: { width: number; height: number }): number {
  let inside = 0;
  const n = 24;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const p = apply(h, ((i + 0.5) / n) * b.width, ((j + 0.5) / n) * b.height);
      if (p && p.x >= 0 && p.y >= 0 && p.x < a.width && p.y < a.height) inside++;
    }
  }
  return inside / (n * n);
}

/**
 * Of b's boxes that `h` puts well inside a, the share that lands on a box of a (IoU >= 0.3) of the
 * same SKU where both are identified; null when too few boxes (5) lie in the overlap to judge.
 */
export function boxAgreement(h: H, a: BayPhoto, b: BayPhoto): number | null {
  const mx = a.width * 0.02;
  const my = a.height * 0.02;
  let inside = 0;
  let agree = 0;
  const ex = b.width * 0.01;
  const ey = b.height * 0.01;
  for (const bb of b.boxes) {
    // A box cut by b's own edge is part of a product: it need not match a's whole one.
    if (bb.x1 <= ex || bb.y1 <= ey || bb.x2 >= b.width - ex || bb.y2 >= b.height - ey) continue;
    const m = mapBox(h, bb);
    if (!m || m.x1 < mx || m.y1 < my || m.x2 > a.width - mx || m.y2 > a.height - my) continue;
    inside++;
    let best: (typeof a.boxes)[number] | null = null;
    let bestIou = 0.3;
    for (const ab of a.boxes) {
      const v = iou(m, ab);
      if (v >= bestIou) [best, bestIou] = [ab, v];
    }
    if (best && (best.sku_id === null || bb.sku_id === null || best.sku_id === bb.sku_id)) agree++;
  }
  return inside < 5 ? null : agree / inside;
}

/** Normalised cross-correlation of the grey pixels of a and b where `h` (b -> a, full pixels) overlaps them. */
function ncc(h: H, a: BayPhoto, b: BayPhoto): number {
  const toB = invert(h);
  if (!toB) return -1;
  // a's match pixels -> a's full pixels -> b's full -> b's match pixels.
  const m = mul(mul(scaling(b.gw / b.width, b.gh / b.height), toB), scaling(a.width / a.gw, a.height / a.gh));
  let n = 0, sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
  for (let y = 2; y < a.gh; y += 5) {
    for (let x = 2; x < a.gw; x += 5) {
      const p = apply(m, x, y);
      if (!p) continue;
      const bx = Math.round(p.x);
      const by = Math.round(p.y);
      if (bx < 0 || by < 0 || bx >= b.gw || by >= b.gh) continue;
      const va = a.gray[y * a.gw + x];
      const vb = b.gray[by * b.gw + bx];
      n++; sa += va; sb += vb; saa += va * va; sbb += vb * vb; sab += va * vb;
    }
  }
  if (n < 100) return -1;
  const cov = sab - (sa * sb) / n;
  const den = Math.sqrt((saa - (sa * sa) / n) * (sbb - (sb * sb) / n));
  return den > 0 ? cov / den : -1;
}

/**
 * Normalised cross-correlation of the overlapping grey pixels per band of a's frame (BANDS columns, then
 * BANDS rows); NaN for a band with too few pixels in the overlap or plain in both photos.
 */
function bandNcc(h: H, a: BayPhoto, b: BayPhoto): number[] {
  const toB = invert(h);
  if (!toB) return [];
  const m = mul(mul(scaling(b.gw / b.width, b.gh / b.height), toB), scaling(a.width / a.gw, a.height / a.gh));
  const acc = Array.from({ length: 2 * BANDS }, () => [0, 0, 0, 0, 0, 0]);
  const add = (s: number[], va: number, vb: number) => {
    s[0]++; s[1] += va; s[2] += vb; s[3] += va * va; s[4] += vb * vb; s[5] += va * vb;
  };
  for (let y = 1; y < a.gh; y += 4) {
    const row = acc[BANDS + Math.min(BANDS - 1, Math.floor((y * BANDS) / a.gh))];
    for (let x = 1; x < a.gw; x += 4) {
      const p = apply(m, x, y);
      if (!p) continue;
      const bx = Math.round(p.x), by = Math.round(p.y);
      if (bx < 0 || by < 0 || bx >= b.gw || by >= b.gh) continue;
      const va = a.gray[y * a.gw + x], vb = b.gray[by * b.gw + bx];
      add(acc[Math.min(BANDS - 1, Math.floor((x * BANDS) / a.gw))], va, vb);
      add(row, va, vb);
    }
  }
  return acc.map(([n, sa, sb, saa, sbb, sab]) => {
    if (n < 40) return NaN;
    const va = saa / n - (sa / n) ** 2, vb = sbb / n - (sb / n) ** 2;
    if (va < PLAIN && vb < PLAIN) return NaN;
    return va > 0 && vb > 0 ? (sab / n - (sa / n) * (sb / n)) / Math.sqrt(va * vb) : 0;
  });
}

/** How far the worst band of the overlap falls below the typical one (0 when too few bands to tell). */
function endDip(h: H, a: BayPhoto, b: BayPhoto): number {
  const bands = bandNcc(h, a, b).filter((v) => !Number.isNaN(v));
  if (bands.length < 4) return 0;
  return median(bands) - Math.min(...bands);
}

/**
 * On shelves of identical packs the features of one pack match any other pack as well, and RANSAC may
 * settle whole packs off (a row of one SKU fits itself at every shift). The boxes name the candidate
 * shifts: each puts some box of b exactly onto a box of a, and the shifts that do so for most boxes are
 * tried. Of those, the one whose pixels agree best with a's over the whole overlap wins: only the true
 * one also lays the shelf's ends, the other products and the gaps' jitter onto themselves. The
 * homography stands unless a shift agrees clearly better.
 */
function snapToPacks(h: H, a: BayPhoto, b: BayPhoto): H {
  if (a.boxes.length < 3 || b.boxes.length < 3) return h;
  const w = median(a.boxes.map((x) => x.x2 - x.x1));
  const hh = median(a.boxes.map((x) => x.y2 - x.y1));
  if (!(w > 0 && hh > 0)) return h;
  const bx = w / 4;
  const by = hh / 4;
  const votes = new Map<string, { dx: number; dy: number; n: number }>();
  for (const bb of b.boxes) {
    const m = mapBox(h, bb);
    if (!m) continue;
    const cx = (m.x1 + m.x2) / 2;
    const cy = (m.y1 + m.y2) / 2;
    for (const ab of a.boxes) {
      const dx = (ab.x1 + ab.x2) / 2 - cx;
      const dy = (ab.y1 + ab.y2) / 2 - cy;
      if (Math.abs(dx) < bx && Math.abs(dy) < by) continue; // the homography as it is
      const key = `${Math.round(dx / bx)}/${Math.round(dy / by)}`;
      const v = votes.get(key) ?? { dx: 0, dy: 0, n: 0 };
      v.dx += dx; v.dy += dy; v.n++;
      votes.set(key, v);
    }
  }
  const candidates = [...votes.values()].filter((v) => v.n >= 3).sort((x, y) => y.n - x.n);
  let best = h;
  let bestScore = ncc(h, a, b) + 0.03;
  for (const v of candidates.slice(0, 16)) {
    const c = mul(translation(v.dx / v.n, v.dy / v.n), h);
    if (overlapShare(c, a, b) < MIN_OVERLAP) continue;
    const s = ncc(c, a, b);
    if (s > bestScore) [best, bestScore] = [c, s];
  }
  // A shelf that repeats itself along its length matches a whole repeat off as well as at the true
  // place, over most of the overlap; only where one photo shows the shelf's end (its side, the wall
  // beyond) and the other more packs do the pixels part. So when one band of the overlap agrees far
  // worse than the rest, the shifts the boxes name (more of them: a repeat is many packs long) are
  // tried for one that agrees as well with no such band.
  if (endDip(best, a, b) <= MAX_DIP) return best;
  const floor = bestScore - 0.03 - DIP_TOLERANCE;
  let end: { h: H; s: number } | null = null;
  for (const v of candidates.slice(0, 64)) {
    const c = mul(translation(v.dx / v.n, v.dy / v.n), h);
    if (overlapShare(c, a, b) < MIN_OVERLAP) continue;
    const s = ncc(c, a, b);
    if (s < floor || (end && s <= end.s) || endDip(c, a, b) > MAX_DIP) continue;
    end = { h: c, s };
  }
  return end?.h ?? best;
}

/**
 * How likely a and b overlap: b's strongest features matched against all of a's (ratio test), and
 * the inliers of a RANSAC homography among those matches. 0 when too few match to fit one.
 */
function rank(cv: OpenCv, fa: Features, fb: Features): number {
  if (fa.count < MIN_KEYPOINTS || fb.strongest.count < 4) return 0;
  const { src, dst } = matchedPoints(fb.strongest, fa);
  if (src.length / 2 < 8) return 0;
  return ransac(cv, src, dst)?.inliers ?? 0;
}

/**
 * The pairs worth a full match, strongest first: each photo's pairs ranked near its best (RANK_SHARE),
 * or all its pairs when its best is unclear (RANK_CLEAR). Photos may come in any order, so every pair
 * is ranked; a ranking costs a sixth of a full match, and most pairs of a long row do not overlap.
 */
function candidatePairs(cv: OpenCv, fs: readonly Features[]): [number, number][] {
  const n = fs.length;
  if (n <= 2) return n === 2 ? [[0, 1]] : [];
  const score = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) score[a][b] = score[b][a] = rank(cv, fs[a], fs[b]);
  }
  const keep = new Map<string, [number, number, number]>();
  for (let i = 0; i < n; i++) {
    const best = Math.max(...score[i].filter((_, j) => j !== i));
    for (let j = 0; j < n; j++) {
      if (j === i || (best >= RANK_CLEAR && score[i][j] < RANK_SHARE * best)) continue;
      const [a, b] = i < j ? [i, j] : [j, i];
      keep.set(`${a}/${b}`, [a, b, score[i][j]]);
    }
  }
  return [...keep.values()].sort((x, y) => y[2] - x[2] || x[0] - y[0] || x[1] - y[1]).map(([a, b]) => [a, b]);
}

function judgePair(cv: OpenCv, photos: readonly BayPhoto[], fs: readonly Features[], a: number, b: number): Pair {
  let first: Pair | null = null;
  let inliers: number | null = null;
  for (const m of hypotheses(cv, fs[a], fs[b])) {
    inliers ??= m.inliers;
    if (m.inliers < MIN_INLIERS) break;
    const judged = judgeHypothesis(photos, a, b, m);
    if (judged.h) return judged;
    first ??= judged;
  }
  return first ?? { a, b, h: null, inliers: inliers ?? 0, agreement: 0, overlap: 0, reason: 'no_overlap' };
}

function judgeHypothesis(photos: readonly BayPhoto[], a: number, b: number, m: { g: H; inliers: number }): Pair {
  const pa = photos[a];
  const pb = photos[b];
  // Match pixels -> full pixels on both sides.
  let h = mul(mul(scaling(pa.width / pa.gw, pa.height / pa.gh), m.g), scaling(pb.gw / pb.width, pb.gh / pb.height));
  if (implausible(h, pb)) return { a, b, h: null, inliers: m.inliers, agreement: 0, overlap: 0, reason: 'wild_transform' };
  h = snapToPacks(h, pa, pb);
  const overlap = overlapShare(h, pa, pb);
  if (overlap < MIN_OVERLAP) return { a, b, h: null, inliers: m.inliers, agreement: 0, overlap, reason: 'no_overlap' };
  const pixels = ncc(h, pa, pb);
  const boxes = boxAgreement(h, pa, pb);
  // Boxes that do not land on boxes, or pixels that do not agree: not the same products (another shelf).
  if ((boxes !== null && boxes < MIN_BOX_AGREEMENT) || pixels < MIN_PIXEL_AGREEMENT) return { a, b, h: null, inliers: m.inliers, agreement: pixels, overlap, reason: 'boxes_disagree' };
  return { a, b, h, inliers: m.inliers, agreement: pixels, overlap, reason: null };
}

/** The photo a photo is expected to overlap: its left neighbour in its row, the one above at a row's start. */
function expectedNeighbour(i: number, n: number, hints: BayHints): number {
  const cols = Math.max(1, Math.min(n, Math.round(hints.stackWidth ?? 0) || n));
  if (i === 0) return n > 1 ? 1 : 0;
  return i % cols === 0 ? i - cols : i - 1;
}

/** Two photos the tree places overlapping whose pixels disagree there, if any (not a pair the tree was grown along). */
function placedConflict(photos: readonly BayPhoto[], toRoot: readonly (H | null)[], via: readonly ({ to: number } | null)[]): [number, number] | null {
  for (let i = 0; i < photos.length; i++) {
    for (let j = i + 1; j < photos.length; j++) {
      if (!toRoot[i] || !toRoot[j] || via[i]?.to === j || via[j]?.to === i) continue;
      const inv = invert(toRoot[i]!);
      if (!inv) continue;
      const h = mul(inv, toRoot[j]!); // j's pixels -> i's
      if (overlapShare(h, photos[i], photos[j]) < MIN_OVERLAP) continue;
      if (ncc(h, photos[i], photos[j]) < MIN_PIXEL_AGREEMENT || endDip(h, photos[i], photos[j]) > MAX_DIP) return [i, j];
    }
  }
  return null;
}

/** The pairs the tree joins along between photos i and j. */
function treePath<P>(via: readonly ({ to: number; pair: P } | null)[], i: number, j: number): P[] {
  const up = (k: number) => {
    const out: number[] = [k];
    while (via[out[out.length - 1]]) out.push(via[out[out.length - 1]]!.to);
    return out;
  };
  const [pi, pj] = [up(i), up(j)];
  const common = pi.find((k) => pj.includes(k));
  const edges = (chain: number[]) => chain.slice(0, chain.indexOf(common!)).map((k) => via[k]!.pair);
  return common === undefined ? [] : [...edges(pi), ...edges(pj)];
}

const MESSAGES: Record<NotJoinedReason, (n: number, m: number) => string> = {
  no_features: (n) => `Photo ${n} shows too little detail to be joined to the others (blurred, or no shelf): take it again.`,
  no_overlap: (n, m) => `Photo ${n} could not be joined to photo ${m}: take it again with more overlap.`,
  wild_transform: (n, m) => `Photo ${n} matches photo ${m} only through an impossible distortion: take it again straight on, with more overlap.`,
  boxes_disagree: (n, m) => `Photo ${n} does not show the products of photo ${m} where they would overlap (another shelf?): take it again with more overlap.`,
  other_part: (n) => `Photo ${n} joins other photos of the scene but not the bay's largest part: take the photos between them again with more overlap.`,
};

/** Registers a scene's photos into one bay frame; photos that cannot be joined say why. */
export function registerBay(cv: OpenCv, photos: readonly BayPhoto[], hints: BayHints = {}): BayRegistration {
  const t0 = performance.now();
  const n = photos.length;
  const fs = photos.map((p) => features(cv, p));
  // The pairs a first pass ranks as likely neighbours are matched first (candidatePairs), in any
  // order; parts still apart are then tried against each other, nearest in the order first.
  const pairs: Pair[] = [];
  const up = photos.map((_, i) => i);
  const find = (i: number): number => (up[i] === i ? i : (up[i] = find(up[i])));
  const tried = new Set<string>();
  const attempt = (a: number, b: number) => {
    if (a === b || a < 0 || b >= n || tried.has(`${a}/${b}`)) return;
    tried.add(`${a}/${b}`);
    if (fs[a].count < MIN_KEYPOINTS || fs[b].count < MIN_KEYPOINTS) return;
    const pair = judgePair(cv, photos, fs, a, b);
    pairs.push(pair);
    if (pair.h) up[find(b)] = find(a);
  };
  // Every pair a first pass ranks likely (or cannot tell) is matched in full, whatever the order, not
  // only the pairs that join the parts: on a shelf that repeats itself a wrong pair can pass every
  // check, and the spanning tree below then joins along the stronger true ones.
  for (const [a, b] of candidatePairs(cv, fs)) attempt(a, b);
  // Parts still apart (a candidate failed its checks) are tried against each other, nearest in the
  // order first, as the ranking may have missed the pair that joins them.
  for (let d = 1; d < n; d++) {
    for (let a = 0; a + d < n; a++) if (find(a) !== find(a + d)) attempt(a, a + d);
  }
  const accepted = pairs.filter((p) => p.h !== null);
  // Largest connected part of the accepted pairs; ties go to the part holding the earliest photo.
  const part = new Array<number>(n).fill(-1);
  let parts = 0;
  for (let s = 0; s < n; s++) {
    if (part[s] >= 0) continue;
    const stack = [s];
    part[s] = parts;
    while (stack.length) {
      const i = stack.pop()!;
      for (const p of accepted) {
        const j = p.a === i ? p.b : p.b === i ? p.a : -1;
        if (j >= 0 && part[j] < 0) { part[j] = parts; stack.push(j); }
      }
    }
    parts++;
  }
  const sizes = new Array<number>(parts).fill(0);
  for (const p of part) sizes[p]++;
  const bayPart = sizes.indexOf(Math.max(...sizes));
  const root = part.indexOf(bayPart);
  // Joined along the strongest pairs (a maximum spanning tree, grown from the root), strength being
  // inliers times the pixels' agreement squared: on a shelf that repeats itself a wrong pair can pass
  // every check, with many inliers or with pixels that agree well, but rarely with both.
  const strength = (p: Pair) => p.inliers * p.agreement * p.agreement;
  const grow = (banned: ReadonlySet<Pair>) => {
    const toRoot = new Array<H | null>(n).fill(null);
    const via = new Array<{ to: number; overlap: number; pair: Pair } | null>(n).fill(null);
    toRoot[root] = IDENTITY;
    if (sizes[bayPart] <= 1) return { toRoot, via };
    for (;;) {
      let best: Pair | null = null;
      for (const p of accepted) {
        if (banned.has(p) || (toRoot[p.a] === null) === (toRoot[p.b] === null)) continue;
        if (!best || strength(p) > strength(best)) best = p;
      }
      if (!best) break;
      if (toRoot[best.a]) {
        toRoot[best.b] = mul(toRoot[best.a]!, best.h!);
        via[best.b] = { to: best.a, overlap: best.overlap, pair: best };
      } else {
        const inv = invert(best.h!);
        if (!inv) break;
        toRoot[best.a] = mul(toRoot[best.b]!, inv);
        via[best.a] = { to: best.b, overlap: overlapShare(inv, photos[best.b], photos[best.a]), pair: best };
      }
    }
    return { toRoot, via };
  };
  // The tree places photos that were not matched as a pair too. Where two of them then overlap, their
  // pixels must agree as a pair's must, with no band of the overlap far off (a shelf's end laid onto
  // its continuation): otherwise a pair on the path between them is a repeat off, and the weakest
  // such pair is left out, as long as every photo still joins.
  let tree = grow(new Set());
  const banned = new Set<Pair>();
  for (let round = 0; round < n; round++) {
    const conflict = placedConflict(photos, tree.toRoot, tree.via);
    if (!conflict) break;
    const path = treePath(tree.via, conflict[0], conflict[1]);
    const weakest = path.sort((x, y) => strength(x) - strength(y))[0];
    if (!weakest) break;
    banned.add(weakest);
    const next = grow(banned);
    if (next.toRoot.filter(Boolean).length < tree.toRoot.filter(Boolean).length) break;
    tree = next;
  }
  const { toRoot, via } = tree;
  // The bay frame: the joined photos' extent, from (0, 0).
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const [i, h] of toRoot.entries()) {
    if (!h) continue;
    const c = mapBox(h, { x1: 0, y1: 0, x2: photos[i].width, y2: photos[i].height })!;
    minX = Math.min(minX, c.x1); minY = Math.min(minY, c.y1); maxX = Math.max(maxX, c.x2); maxY = Math.max(maxY, c.y2);
  }
  const shift = translation(-minX, -minY);
  const single = sizes[bayPart] <= 1;
  const out: BayPhotoJoin[] = photos.map((p, i) => {
    const h = toRoot[i];
    if (h && !single) {
      const v = via[i];
      return { image: p.image, joined: true, transform: mul(shift, h).map((x) => Math.round(x * 1e9) / 1e9), joined_to: v ? photos[v.to].image : null, overlap: v ? Math.round(v.overlap * 1000) / 1000 : null, reason: null, message: null };
    }
    const m = expectedNeighbour(i, n, hints);
    let reason: NotJoinedReason;
    if (fs[i].count < MIN_KEYPOINTS) reason = 'no_features';
    else if (part[i] !== bayPart && sizes[part[i]] > 1) reason = 'other_part';
    else {
      // Matched now if the ranking left the pair out (the reason is the expected neighbour's).
      attempt(Math.min(i, m), Math.max(i, m));
      const pair = pairs.find((x) => (x.a === i && x.b === m) || (x.b === i && x.a === m));
      // Against the expected neighbour; its failure says most (a wild transform, boxes that disagree).
      reason = pair?.reason ?? 'no_overlap';
    }
    return { image: p.image, joined: false, transform: null, joined_to: null, overlap: null, reason, message: MESSAGES[reason](i + 1, m + 1) };
  });
  if (single) {
    // Nothing joined at all: no bay, every photo its own rack (the reference photo too).
    out[root] = { ...out[root], joined: false, transform: null, reason: out[root].reason ?? 'no_overlap', message: out[root].message ?? MESSAGES.no_overlap(root + 1, expectedNeighbour(root, n, hints) + 1) };
  }
  return {
    width: single ? 0 : Math.ceil(maxX - minX),
    height: single ? 0 : Math.ceil(maxY - minY),
    photos: out,
    ms: Math.round(performance.now() - t0),
  };
}
