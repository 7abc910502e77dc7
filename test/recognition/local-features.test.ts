// Local-feature verification: the JavaScript ratio-test matching (recognition/hamming.ts) gives
// exactly OpenCV's matches, knnMatch (k = 2, brute force, Hamming) filtered by Lowe's ratio, on real
// ORB descriptors of reference crops, also from an unaligned buffer (as decoded from the database)
// and with ties; verifiedMatches skips the homography only below the matches its caller asks for.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assemble } from '../../scripts/build-wasm.mjs';
import { describeProduct, describeQuery } from '../../main/server/recognition/identification/describe.js';
import { ratioMatches } from '../../main/server/recognition/hamming.js';
import { verifiedMatches, type LocalFeatures } from '../../main/server/recognition/identification/local-features.js';
import { loadOpenCv } from '../../main/server/recognition/opencv.js';
import { groceryPackshots, referenceFiles, unseenFiles, UPRIGHT } from './fixtures.js';

async function opencvMatches(query: LocalFeatures, ref: LocalFeatures, ratio: number): Promise<number[]> {
  const cv = await loadOpenCv();
  const matcher = new cv.BFMatcher(cv.NORM_HAMMING, false);
  const q = cv.matFromArray(query.count, 32, cv.CV_8UC1, query.descriptors as unknown as number[]);
  const r = cv.matFromArray(ref.count, 32, cv.CV_8UC1, ref.descriptors as unknown as number[]);
  const knn = new cv.DMatchVectorVector();
  const out: number[] = [];
  try {
    matcher.knnMatch(q, r, knn, 2);
    for (let i = 0; i < knn.size(); i++) {
      const pair = knn.get(i);
      if (pair.size() >= 2 && pair.get(0).distance < ratio * pair.get(1).distance) out.push(pair.get(0).queryIdx, pair.get(0).trainIdx);
      pair.delete();
    }
  } finally {
    q.delete();
    r.delete();
    knn.delete();
    matcher.delete();
  }
  return out;
}

describe('ratio-test matching', () => {
  it('runs the module its WebAssembly text assembles to (hamming.wasm is hamming.wat, rebuilt)', async () => {
    const dir = new URL('../../main/server/recognition/', import.meta.url);
    const built = await assemble(new URL('hamming.wat', dir).pathname);
    expect(built.length).toBeGreaterThan(100);
    expect(Buffer.compare(built, readFileSync(new URL('hamming.wasm', dir)))).toBe(0); // else: npm run build:wasm
  });

  it("matches exactly as OpenCV's knnMatch with the ratio test", async () => {
    const features = [];
    for (const p of UPRIGHT.slice(0, 3)) for (const f of referenceFiles(p).slice(0, 2)) features.push((await describeProduct(f)).local);
    let compared = 0;
    for (const query of features) {
      for (const ref of features) {
        if (query === ref) continue;
        const expected = await opencvMatches(query, ref, 0.8);
        expect([...ratioMatches(query, ref, 0.8)]).toEqual(expected);
        compared += expected.length / 2;
      }
    }
    expect(compared).toBeGreaterThan(100);
  }, 60_000);

  it('matches exactly as OpenCV for shelf-crop queries against a catalog, of the same SKU or not', async () => {
    // As the pipeline compares them: a query's features (QUERY_FEATURES) against references' ones.
    const refs = [];
    for (const p of UPRIGHT) refs.push((await describeProduct(referenceFiles(p)[0])).local);
    for (const { file } of groceryPackshots(3)) refs.push((await describeProduct(file)).local);
    let compared = 0;
    for (const p of UPRIGHT) {
      const query = await (await describeQuery(unseenFiles(p)[0])).local();
      for (const ref of refs) {
        const expected = await opencvMatches(query, ref, 0.8);
        expect([...ratioMatches(query, ref, 0.8)]).toEqual(expected);
        compared += expected.length / 2;
      }
    }
    expect(compared).toBeGreaterThan(100);
  }, 60_000);

  it('matches exactly as OpenCV at the extreme distances (0 and 256 bits) and on inputs larger than before', async () => {
    // Random descriptors, their complements (256 bits away) and copies (0 bits away, ties), as many
    // as several reference images hold together: the matcher's memory has to grow for them.
    let seed = 7;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24);
    const features = (count: number, fill: (i: number, b: number) => number): LocalFeatures => {
      const descriptors = new Uint8Array(count * 32);
      for (let i = 0; i < count; i++) for (let b = 0; b < 32; b++) descriptors[i * 32 + b] = fill(i, b);
      return { count, points: new Float32Array(count * 2), descriptors };
    };
    const query = features(300, () => random());
    const far = features(300, (i, b) => ~query.descriptors[i * 32 + b] & 0xff);
    const mixed = features(3000, (i, b) => (i % 3 === 0 ? query.descriptors[((i / 3) % 300) * 32 + b] : i % 3 === 1 ? far.descriptors[(i % 300) * 32 + b] : random()));
    const two = features(2, (i, b) => (i === 0 ? query.descriptors[b] : far.descriptors[b]));
    for (const ref of [far, mixed, two, features(2, () => 0), features(2, () => 0xff)]) {
      expect([...ratioMatches(query, ref, 0.8)]).toEqual(await opencvMatches(query, ref, 0.8));
    }
    // Exact distances: a descriptor with its first n bits flipped is n bits away.
    const flipped = (n: number) => query.descriptors.slice(0, 32).map((v, b) => v ^ (b < n >> 3 ? 0xff : 0));
    const refOf = (...bits: number[]) => features(bits.length, (i, b) => flipped(bits[i])[b]);
    for (const [bits, expected] of [
      [[0, 256], [0, 0]],
      [[232, 176], [0, 1]], // 176 < 0.8 x 232: passes, far as both are
      [[232, 192], []], // 192 >= 0.8 x 232
      [[256, 256], []],
      [[256, 192, 248], [0, 1]], // 192 < 0.8 x 248
    ] as const) {
      const ref = refOf(...bits);
      expect([...ratioMatches(refOf(0), ref, 0.8)]).toEqual(expected);
      expect(await opencvMatches(refOf(0), ref, 0.8)).toEqual(expected);
    }
  }, 60_000);

  it('reads descriptors from an unaligned buffer, and fails the test on a tie for the nearest', async () => {
    const a = (await describeProduct(referenceFiles('fanta_pet')[0])).local;
    const b = (await describeProduct(referenceFiles('fanta_pet')[1])).local;
    const shifted = new Uint8Array(a.descriptors.length + 1);
    shifted.set(a.descriptors, 1);
    const unaligned = { ...a, descriptors: shifted.subarray(1) };
    expect([...ratioMatches(unaligned, b, 0.8)]).toEqual(await opencvMatches(a, b, 0.8));
    // The reference twice over: every nearest neighbour is tied, so nothing passes.
    const twice = new Uint8Array(b.count * 64);
    twice.set(b.descriptors.subarray(0, b.count * 32));
    twice.set(b.descriptors.subarray(0, b.count * 32), b.count * 32);
    const doubled = { count: b.count * 2, points: new Float32Array(b.count * 4), descriptors: twice };
    expect(ratioMatches(a, doubled, 0.8).length).toBe(0);
    expect((await opencvMatches(a, doubled, 0.8)).length).toBe(0);
  }, 60_000);

  it('estimates no homography below minMatches, and counts the same inliers above', async () => {
    const [a, b] = await Promise.all(referenceFiles('sprite_pet').slice(0, 2).map(async (f) => (await describeProduct(f)).local));
    const matches = ratioMatches(a, b, 0.8).length / 2;
    const inliers = await verifiedMatches(a, b);
    expect(inliers).toBeGreaterThan(8);
    expect(inliers).toBeLessThanOrEqual(matches);
    expect(await verifiedMatches(a, b, matches)).toBe(inliers);
    expect(await verifiedMatches(a, b, matches + 1)).toBe(0);
  }, 60_000);
});
