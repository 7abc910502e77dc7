// The joining's own work (bay/register.ts), without the detector: photos cut from a real shelf photo,
// registered from their grey copies alone (no boxes), with OpenCV's calls and the descriptor matcher's
// (recognition/hamming.ts) counted. What a join costs is measured by the bay bench (`npm run bench --
// bay`); here, that it does no work it does not need.
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Descriptors } from '../../main/server/recognition/hamming.js';
import { apply, invert, mul, type H } from '../../main/server/recognition/bay/homography.js';
import { registerBay, type BayPhoto } from '../../main/server/recognition/bay/register.js';
import { loadOpenCv, type OpenCv } from '../../main/server/recognition/opencv.js';
import { blockGray, matchingGray } from '../../main/server/recognition/pipeline.js';
import { DATA } from './fixtures.js';

// The matcher's calls, seen by the row test below: a full match queries all of a photo's features, the
// ranking only its strongest 256. With `rankless` set, the ranking finds no matches.
const matcher = vi.hoisted(() => ({ queries: [] as number[], rankless: false }));
vi.mock('../../main/server/recognition/hamming.js', async (original) => {
  const real = await original<typeof import('../../main/server/recognition/hamming.js')>();
  return {
    ...real,
    ratioMatches: (query: Descriptors, ref: Descriptors, ratio: number) => {
      matcher.queries.push(query.count);
      return matcher.rankless && query.count <= 256 ? new Int32Array(0) : real.ratioMatches(query, ref, ratio);
    },
  };
});

let cv: OpenCv;
let src: { data: Buffer; width: number; height: number };

beforeAll(async () => {
  cv = await loadOpenCv();
  const { data, info } = await sharp(path.join(DATA, 'shelf-photos', 'test_1175.jpg')).rotate().resize(1600).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  src = { data, width: info.width, height: info.height };
}, 60_000);

/** Columns [x, x + w) of the source, enlarged by `scale`, as a bay photo with no boxes; with its photo -> source transform. */
async function photo(image: string, x: number, w: number, scale = 1): Promise<{ p: BayPhoto; truth: H }> {
  const width = Math.round(w * scale);
  const height = Math.round(src.height * scale);
  const { data } = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .extract({ left: x, top: 0, width: w, height: src.height })
    .resize(width, height, { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const gray = await matchingGray({ data, width, height, channels: 3 });
  return { p: { image, width, height, ...gray, boxes: [] }, truth: [1 / scale, 0, x, 0, 1 / scale, 0, 0, 0, 1] };
}

/** OpenCV with its calls of `names` counted. */
function counting(names: readonly string[]): { cv: OpenCv; calls: Record<string, number> } {
  const calls: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
  const proxy = new Proxy(cv, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver);
      if (typeof key !== 'string' || !names.includes(key) || typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        calls[key]++;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { cv: proxy, calls };
}

describe('joining a pair of photos', () => {
  it('fits one RANSAC homography to a pair its first hypothesis joins (the second only where the first fails the checks)', async () => {
    const cw = Math.round(src.width * 0.6);
    const left = await photo('left', 0, cw);
    const right = await photo('right', src.width - cw, cw, 0.85);
    const { cv: counted, calls } = counting(['findHomography']);
    const bay = registerBay(counted, [left.p, right.p]);
    expect(bay.photos.map((p) => p.joined)).toEqual([true, true]);
    // One RANSAC for the one pair: the matches its homography left out (enough for another: this
    // overlap leaves some 20) are fitted only when it fails.
    expect(calls.findHomography).toBe(1);
    // And the join is the true one: the right photo's points land where they were cut from.
    const toLeft = mul(invert(bay.photos[0].transform!)!, bay.photos[1].transform!);
    for (const [x, y] of [[0.2, 0.2], [0.8, 0.5], [0.3, 0.9]].map(([u, v]) => [u * right.p.width, v * right.p.height])) {
      const got = apply(left.truth, apply(toLeft, x, y)!.x, apply(toLeft, x, y)!.y)!;
      const want = apply(right.truth, x, y)!;
      expect(Math.hypot(got.x - want.x, got.y - want.y)).toBeLessThan(3);
    }
  }, 60_000);
});

describe('the grey copy by blocks', () => {
  it("is each whole block's mean 601 luma, for 3 and 4 channels and blocks of 2 to 5", () => {
    // Odd sizes: the last partial row and column of blocks are left out.
    const [w, h] = [4 * 37 + 3, 4 * 23 + 2];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
    for (const channels of [3, 4]) {
      const data = Uint8Array.from({ length: w * h * channels }, random);
      for (const block of [2, 3, 4, 5]) {
        const got = blockGray({ data, width: w, height: h, channels }, block);
        const [gw, gh] = [Math.floor(w / block), Math.floor(h / block)];
        expect([got.gw, got.gh]).toEqual([gw, gh]);
        for (let gy = 0; gy < gh; gy++) {
          for (let gx = 0; gx < gw; gx++) {
            let sum = 0;
            for (let y = gy * block; y < (gy + 1) * block; y++) {
              for (let x = gx * block; x < (gx + 1) * block; x++) {
                const i = (y * w + x) * channels;
                sum += data[i] * 77 + data[i + 1] * 150 + data[i + 2] * 29;
              }
            }
            expect(got.gray[gy * gw + gx], `${channels} channels, block ${block}, (${gx}, ${gy})`).toBe(Math.round(sum / (block * block * 256)));
          }
        }
      }
    }
  });
});

describe('a row of photos in any order', () => {
  it('matches in full only the pairs a first pass ranks as neighbours, and joins as when every pair is matched', async () => {
    // Six photos across the shelf, neighbours overlapping by 30 %, given shuffled (no neighbours next
    // to each other in the order).
    const w = Math.round(src.width / (1 + 5 * 0.7));
    const step = Math.round(w * 0.7);
    const cuts = await Promise.all([0, 1, 2, 3, 4, 5].map((k) => photo(`p${k}`, Math.min(k * step, src.width - w), w)));
    const order = [3, 0, 4, 1, 5, 2];
    // With the ranking finding nothing, every pair is unclear and matched in full, as every pair was
    // before the ranking.
    const { queries } = matcher;
    queries.length = 0;
    matcher.rankless = true;
    const all = registerBay(cv, order.map((k) => cuts[k].p));
    matcher.rankless = false;
    expect(queries.filter((r) => r > 256)).toHaveLength(15);
    queries.length = 0;
    const bay = registerBay(cv, order.map((k) => cuts[k].p));
    expect(bay.photos.map((p) => p.joined)).toEqual([true, true, true, true, true, true]);
    const full = queries.filter((r) => r > 256).length;
    // Every one of the 15 pairs was matched in full before; the 5 true neighbours must be among them.
    expect(full).toBeGreaterThanOrEqual(5);
    expect(full).toBeLessThanOrEqual(9);
    expect(queries.filter((r) => r <= 256)).toHaveLength(15);
    // The same joins as every pair matched in full: each photo to a neighbour in the shelf, by the same transform.
    expect(bay.photos.map((p) => [p.joined_to, p.transform])).toEqual(all.photos.map((p) => [p.joined_to, p.transform]));
    const at = (image: string) => Number(image.slice(1));
    for (const p of bay.photos) if (p.joined_to) expect(Math.abs(at(p.image) - at(p.joined_to))).toBe(1);
  }, 60_000);
});
