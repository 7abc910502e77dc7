// Stitches a scene's photos into one panorama: ORB features on reduced grey copies, ratio-tested
// matches between neighbouring photos, a RANSAC homography per pair, chained into the first photo's
// frame, every photo warped onto one canvas and blended (averaged where photos overlap).
// panorama_stack_width/height say how the photos were taken: a grid of `width` photos per row, row by
// row; without hints the photos are one row, left to right. Photos that cannot be registered are
// placed beside the panorama instead, and the result says `stitched: false`.
// A scene already joined into a bay (bay/register.ts) is laid out by the bay's transforms instead, so
// the picture and the counted facings agree, and the merged facings are drawn on it.
import sharp from 'sharp';
import { ratioMatches } from './hamming.js';
import { loadOpenCv, type OpenCv } from './opencv.js';

export interface PanoramaHints {
  stackWidth?: number | null;
  stackHeight?: number | null;
  /** The scene's bay: each photo's photo -> bay homography (null: not joined) and the merged facings. */
  bay?: PanoramaBay;
}

export interface PanoramaBay {
  transforms: (number[] | null)[];
  /** Each photo's width as analysed (the transforms' pixels). */
  widths: number[];
  /** The merged facings, in bay pixels. */
  boxes: { x1: number; y1: number; x2: number; y2: number }[];
}

export interface Panorama {
  jpeg: Buffer;
  width: number;
  height: number;
  stitched: boolean;
}

const WORK_SIDE = 1600; // photos are stitched at this longest side
const MATCH_SIDE = 800; // and matched at this one
const MIN_INLIERS = 20;
const MAX_CANVAS_PIXELS = 40_000_000;

interface Photo {
  rgb: Buffer;
  width: number;
  height: number;
  gray: Buffer;
  gw: number;
  gh: number;
}

async function loadPhoto(path: string): Promise<Photo> {
  const { data: rgb, info } = await sharp(path).rotate().removeAlpha().toColourspace('srgb')
    .resize(WORK_SIDE, WORK_SIDE, { fit: 'inside', withoutEnlargement: true }).raw().toBuffer({ resolveWithObject: true });
  const { data: gray, info: g } = await sharp(rgb, { raw: { width: info.width, height: info.height, channels: 3 } })
    .resize(MATCH_SIDE, MATCH_SIDE, { fit: 'inside', withoutEnlargement: true }).grayscale().raw().toBuffer({ resolveWithObject: true });
  return { rgb, width: info.width, height: info.height, gray, gw: g.width, gh: g.height };
}

type H = number[]; // 3x3 row-major

const mul = (a: H, b: H): H => {
  const o = new Array(9).fill(0);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) for (let k = 0; k < 3; k++) o[r * 3 + c] += a[r * 3 + k] * b[k * 3 + c];
  return o;
};
const scaleH = (s: number): H => [s, 0, 0, 0, s, 0, 0, 0, 1];
const translate = (x: number, y: number): H => [1, 0, x, 0, 1, y, 0, 0, 1];
const apply = (h: H, x: number, y: number) => {
  const w = h[6] * x + h[7] * y + h[8];
  return { x: (h[0] * x + h[1] * y + h[2]) / w, y: (h[3] * x + h[4] * y + h[5]) / w };
};

/** Homography taking `b`'s work pixels into `a`'s work pixels, or null when they do not overlap. */
function register(cv: OpenCv, a: Photo, b: Photo): H | null {
  const orb = new cv.ORB(3000);
  const mats: { delete(): void }[] = [orb];
  const mat = <T extends { delete(): void }>(m: T) => (mats.push(m), m);
  try {
    const ia = mat(cv.matFromArray(a.gh, a.gw, cv.CV_8UC1, a.gray as unknown as number[]));
    const ib = mat(cv.matFromArray(b.gh, b.gw, cv.CV_8UC1, b.gray as unknown as number[]));
    const ka = mat(new cv.KeyPointVector());
    const kb = mat(new cv.KeyPointVector());
    const da = mat(new cv.Mat());
    const db = mat(new cv.Mat());
    const none = mat(new cv.Mat());
    orb.detectAndCompute(ia, none, ka, da);
    orb.detectAndCompute(ib, none, kb, db);
    if (da.rows < MIN_INLIERS || db.rows < MIN_INLIERS) return null;
    const pairs = ratioMatches({ count: db.rows, descriptors: db.data }, { count: da.rows, descriptors: da.data }, 0.75);
    const src: number[] = [];
    const dst: number[] = [];
    for (let k = 0; k < pairs.length; k += 2) {
      const pb = kb.get(pairs[k]).pt;
      const pa = ka.get(pairs[k + 1]).pt;
      src.push(pb.x, pb.y);
      dst.push(pa.x, pa.y);
    }
    if (src.length / 2 < MIN_INLIERS) return null;
    const ps = mat(cv.matFromArray(src.length / 2, 1, cv.CV_32FC2, src));
    const pd = mat(cv.matFromArray(dst.length / 2, 1, cv.CV_32FC2, dst));
    const mask = mat(new cv.Mat());
    const h = mat(cv.findHomography(ps, pd, cv.RANSAC, 4, mask));
    if (h.empty() || cv.countNonZero(mask) < MIN_INLIERS) return null;
    const g = Array.from(h.data64F);
    // Match pixels -> work pixels on both sides.
    const sa = a.width / a.gw;
    const sb = b.width / b.gw;
    return mul(mul(scaleH(sa), g), scaleH(1 / sb));
  } finally {
    for (const m of mats.reverse()) m.delete();
  }
}

export async function stitchPanorama(paths: readonly string[], hints: PanoramaHints = {}): Promise<Panorama> {
  const cv = await loadOpenCv();
  const photos: Photo[] = [];
  for (const p of paths) photos.push(await loadPhoto(p));
  const cols = Math.max(1, Math.min(photos.length, Math.round(hints.stackWidth ?? 0) || photos.length));
  // Each photo's homography into photo 0's frame: registered against its left neighbour in its row,
  // or the photo above it when it starts a row. With a bay: into the bay's frame, as it was joined.
  const bay = hints.bay && hints.bay.transforms.length === photos.length && hints.bay.transforms.filter(Boolean).length >= 2 ? hints.bay : undefined;
  const toFirst: (H | null)[] = bay ? bay.transforms.map((t, i) => (t ? mul(t, scaleH(bay.widths[i] / photos[i].width)) : null)) : [[1, 0, 0, 0, 1, 0, 0, 0, 1]];
  let stitched = bay ? toFirst.every(Boolean) : photos.length > 1;
  for (let i = bay ? photos.length : 1; i < photos.length; i++) {
    const neighbour = i % cols === 0 ? i - cols : i - 1;
    const base = toFirst[neighbour];
    const h = base ? register(cv, photos[neighbour], photos[i]) : null;
    if (!base || !h) {
      stitched = false;
      toFirst.push(null);
    } else {
      toFirst.push(mul(base, h));
    }
  }
  // Unregistered photos go to the right of everything placed so far, top-aligned.
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  const corners = (h: H, p: Photo) => [apply(h, 0, 0), apply(h, p.width, 0), apply(h, 0, p.height), apply(h, p.width, p.height)];
  for (const [i, h] of toFirst.entries()) {
    if (!h) continue;
    for (const c of corners(h, photos[i])) {
      minX = Math.min(minX, c.x); minY = Math.min(minY, c.y); maxX = Math.max(maxX, c.x); maxY = Math.max(maxY, c.y);
    }
  }
  const placed: H[] = toFirst.map((h, i) => {
    if (h) return h;
    const t = translate(maxX, minY);
    maxX += photos[i].width;
    maxY = Math.max(maxY, minY + photos[i].height);
    return t;
  });
  let width = Math.ceil(maxX - minX);
  let height = Math.ceil(maxY - minY);
  const shrink = Math.min(1, Math.sqrt(MAX_CANVAS_PIXELS / (width * height)));
  width = Math.max(1, Math.round(width * shrink));
  height = Math.max(1, Math.round(height * shrink));
  const toCanvas = mul(scaleH(shrink), translate(-minX, -minY));

  const sum = new Float32Array(width * height * 3);
  const count = new Uint16Array(width * height);
  for (const [i, h] of placed.entries()) {
    const p = photos[i];
    const src = cv.matFromArray(p.height, p.width, cv.CV_8UC3, p.rgb as unknown as number[]);
    const ones = new cv.Mat(p.height, p.width, cv.CV_8UC1, new cv.Scalar(255));
    const m = cv.matFromArray(3, 3, cv.CV_64F, mul(toCanvas, h));
    const warped = new cv.Mat();
    const mask = new cv.Mat();
    const size = new cv.Size(width, height);
    try {
      cv.warpPerspective(src, warped, m, size, cv.INTER_LINEAR, cv.BORDER_CONSTANT, new cv.Scalar(0, 0, 0, 0));
      cv.warpPerspective(ones, mask, m, size, cv.INTER_NEAREST, cv.BORDER_CONSTANT, new cv.Scalar(0));
      const wd = warped.data;
      const md = mask.data;
      for (let k = 0; k < width * height; k++) {
        if (md[k] === 0) continue;
        count[k]++;
        sum[k * 3] += wd[k * 3];
        sum[k * 3 + 1] += wd[k * 3 + 1];
        sum[k * 3 + 2] += wd[k * 3 + 2];
      }
    } finally {
      src.delete(); ones.delete(); m.delete(); warped.delete(); mask.delete();
    }
  }
  const out = Buffer.alloc(width * height * 3, 255);
  for (let k = 0; k < width * height; k++) {
    const n = count[k];
    if (n === 0) continue;
    out[k * 3] = sum[k * 3] / n;
    out[k * 3 + 1] = sum[k * 3 + 1] / n;
    out[k * 3 + 2] = sum[k * 3 + 2] / n;
  }
  for (const b of bay?.boxes ?? []) {
    const p = apply(toCanvas, b.x1, b.y1);
    const q = apply(toCanvas, b.x2, b.y2);
    outline(out, width, height, p.x, p.y, q.x, q.y);
  }
  const jpeg = await sharp(out, { raw: { width, height, channels: 3 } }).jpeg({ quality: 88 }).toBuffer();
  return { jpeg, width, height, stitched };
}

/** A box's outline, 3 pixels wide, in the colour the review screen marks the model's boxes with. */
function outline(rgb: Buffer, width: number, height: number, x1: number, y1: number, x2: number, y2: number): void {
  const [r, g, b] = [0, 200, 120];
  const put = (x: number, y: number) => {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const k = (y * width + x) * 3;
    rgb[k] = r; rgb[k + 1] = g; rgb[k + 2] = b;
  };
  const [l, t, rt, bt] = [Math.round(x1), Math.round(y1), Math.round(x2), Math.round(y2)];
  for (let d = 0; d < 3; d++) {
    for (let x = l; x <= rt; x++) { put(x, t + d); put(x, bt - d); }
    for (let y = t; y <= bt; y++) { put(l + d, y); put(rt - d, y); }
  }
}
