// Local features (ORB keypoints + binary descriptors) and their geometric verification: the number of
// ratio-test matches that agree on one homography (RANSAC inliers). Printed packaging shares exact
// local patterns between a reference and a photo of the same product, which colour statistics alone
// cannot confirm.
import { loadOpenCv, type OpenCv } from '../opencv.js';
import { ratioMatches } from '../hamming.js';
import type { RawPixels } from '../raw-pixels.js';

export const LOCAL_SIDE = 320; // longest side of the grey image features are taken from
/** Keypoints kept per reference image; a query keeps fewer (matching cost is their product). */
export const REFERENCE_FEATURES = 500;
export const QUERY_FEATURES = 500;
const RATIO = 0.8;
const RANSAC_PX = 6;

export interface LocalFeatures {
  count: number;
  points: Float32Array; // x0, y0, x1, y1, ...
  descriptors: Uint8Array; // count x 32 bytes
}

export const EMPTY_FEATURES: LocalFeatures = { count: 0, points: new Float32Array(0), descriptors: new Uint8Array(0) };

const orbs = new Map<number, InstanceType<OpenCv['ORB']>>();
let matcher: InstanceType<OpenCv['BFMatcher']> | undefined;

/** `gray` has one channel. */
export async function localFeatures(gray: RawPixels, maxFeatures = REFERENCE_FEATURES): Promise<LocalFeatures> {
  const cv = await loadOpenCv();
  let orb = orbs.get(maxFeatures);
  if (!orb) orbs.set(maxFeatures, (orb = new cv.ORB(maxFeatures)));
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
 * Lowe-ratio filtered nearest neighbours (Hamming distance, hamming.ts). With fewer than `minMatches`
 * of them (at least the 4 a homography needs) the answer is 0 without estimating one: a caller to
 * whom so few inliers mean nothing saves the RANSAC, the costliest step.
 */
export async function verifiedMatches(query: LocalFeatures, ref: LocalFeatures, minMatches = 4): Promise<number> {
  if (query.count < 2 || ref.count < 2) return 0;
  const pairs = ratioMatches(query, ref, RATIO);
  const good = pairs.length / 2;
  if (good < Math.max(4, minMatches)) return 0;
  const src = new Array<number>(2 * good);
  const dst = new Array<number>(2 * good);
  for (let k = 0; k < good; k++) {
    const qi = pairs[2 * k];
    const ri = pairs[2 * k + 1];
    src[2 * k] = query.points[qi * 2];
    src[2 * k + 1] = query.points[qi * 2 + 1];
    dst[2 * k] = ref.points[ri * 2];
    dst[2 * k + 1] = ref.points[ri * 2 + 1];
  }
  const cv = await loadOpenCv();
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
}

/** Every reference's descriptors in one matrix, to vote for candidates with one matching pass. */
export interface VoteIndex {
  descriptors: Uint8Array; // rows x 32
  owner: Int32Array; // row -> owner index
  rows: number;
}

export function buildVoteIndex(features: readonly LocalFeatures[]): VoteIndex {
  const rows = features.reduce((n, f) => n + f.count, 0);
  const descriptors = new Uint8Array(rows * 32);
  const owner = new Int32Array(rows);
  let r = 0;
  features.forEach((f, i) => {
    descriptors.set(f.descriptors.subarray(0, f.count * 32), r * 32);
    owner.fill(i, r, r + f.count);
    r += f.count;
  });
  return { descriptors, owner, rows };
}

// A nearest neighbour farther than this (of 256 bits) is no evidence for anything.
const VOTE_MAX_DISTANCE = 50;

/** For each owner, how many query keypoints have their nearest reference descriptor there. */
export async function vote(query: LocalFeatures, index: VoteIndex, owners: number): Promise<Int32Array> {
  const votes = new Int32Array(owners);
  if (query.count === 0 || index.rows === 0) return votes;
  const cv = await loadOpenCv();
  matcher ??= new cv.BFMatcher(cv.NORM_HAMMING, false);
  const q = cv.matFromArray(query.count, 32, cv.CV_8UC1, query.descriptors as unknown as number[]);
  const r = cv.matFromArray(index.rows, 32, cv.CV_8UC1, index.descriptors as unknown as number[]);
  const matches = new cv.DMatchVector();
  try {
    matcher.match(q, r, matches);
    for (let i = 0; i < matches.size(); i++) {
      const m = matches.get(i);
      if (m.distance <= VOTE_MAX_DISTANCE) votes[index.owner[m.trainIdx]]++;
    }
  } finally {
    q.delete();
    r.delete();
    matches.delete();
  }
  return votes;
}
