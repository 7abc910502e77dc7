// Local features (ORB keypoints + binary descriptors) and their geometric verification: the number of
// ratio-test matches that agree on one homography (RANSAC inliers). Printed packaging shares exact
// local patterns between a reference and a photo of the same product, which colour statistics alone
// cannot confirm.
import { loadOpenCv, type OpenCv } from '../opencv.js';
import type { RawPixels } from './image-input.js';

export const LOCAL_SIDE = 320; // longest side of the grey image features are taken from
const MAX_FEATURES = 500;
const RATIO = 0.8;
const RANSAC_PX = 6;

export interface LocalFeatures {
  count: number;
  points: Float32Array; // x0, y0, x1, y1, ...
  descriptors: Uint8Array; // count x 32 bytes
}

export const EMPTY_FEATURES: LocalFeatures = { count: 0, points: new Float32Array(0), descriptors: new Uint8Array(0) };

let orb: InstanceType<OpenCv['ORB']> | undefined;
let matcher: InstanceType<OpenCv['BFMatcher']> | undefined;

/** `gray` has one channel. */
export async function localFeatures(gray: RawPixels): Promise<LocalFeatures> {
  const cv = await loadOpenCv();
  orb ??= new cv.ORB(MAX_FEATURES);
  const img = cv.matFromArray(gray.height, gray.width, cv.CV_8UC1, gray.data as unknown as number[]);
  const kps = new cv.KeyPointVector();
  const desc = new cv.Mat();
  const noMask = new cv.Mat();
  try {
    orb.detectAndCompute(img, noMask, kps, desc);
    const count = desc.rows;
    if (count === 0) return EMPTY_FEATURES;
    const points = new Float32Array(count * 2);
    for (let i = 0; i < count; i++) {
      const kp = kps.get(i);
      points[i * 2] = kp.pt.x;
      points[i * 2 + 1] = kp.pt.y;
    }
    return { count, points, descriptors: new Uint8Array(desc.data) };
  } finally {
    img.delete();
    kps.delete();
    desc.delete();
    noMask.delete();
  }
}

/**
 * Number of matches between a query and a reference consistent with one homography. Matches are
 * Lowe-ratio filtered nearest neighbours (Hamming distance).
 */
export async function verifiedMatches(query: LocalFeatures, ref: LocalFeatures): Promise<number> {
  if (query.count < 2 || ref.count < 2) return 0;
  const cv = await loadOpenCv();
  matcher ??= new cv.BFMatcher(cv.NORM_HAMMING, false);
  const q = cv.matFromArray(query.count, 32, cv.CV_8UC1, query.descriptors as unknown as number[]);
  const r = cv.matFromArray(ref.count, 32, cv.CV_8UC1, ref.descriptors as unknown as number[]);
  const knn = new cv.DMatchVectorVector();
  try {
    matcher.knnMatch(q, r, knn, 2);
    const src: number[] = [];
    const dst: number[] = [];
    for (let i = 0; i < knn.size(); i++) {
      const pair = knn.get(i);
      if (pair.size() < 2) continue;
      const m = pair.get(0);
      const n = pair.get(1);
      if (m.distance < RATIO * n.distance) {
        src.push(query.points[m.queryIdx * 2], query.points[m.queryIdx * 2 + 1]);
        dst.push(ref.points[m.trainIdx * 2], ref.points[m.trainIdx * 2 + 1]);
      }
    }
    const good = src.length / 2;
    if (good < 4) return 0;
    const a = cv.matFromArray(good, 1, cv.CV_32FC2, src);
    const b = cv.matFromArray(good, 1, cv.CV_32FC2, dst);
    const mask = new cv.Mat();
    try {
      const H = cv.findHomography(a, b, cv.RANSAC, RANSAC_PX, mask);
      const empty = H.empty();
      H.delete();
      if (empty) return 0;
      return cv.countNonZero(mask);
    } finally {
      a.delete();
      b.delete();
      mask.delete();
    }
  } finally {
    q.delete();
    r.delete();
    knn.delete();
  }
}
