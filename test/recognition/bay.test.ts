// Bays: one real shelf photo cut into overlapping photos (2, 3, 4 in a row and 2x2, with changes of
// scale, rotation, shear and brightness between them, given out of order, one stored turned with an EXIF
// orientation) is joined into one bay, and each facing is counted once. The shipped detector finds the
// boxes; an empty catalog leaves every product unknown, so "per SKU" is the one unknown SKU here (the
// API test below identifies SKUs).
// A cut photo is not the whole photo to the detector (its zoom and context change), so the bay's
// count is held against the merge that the true placement of the photos gives (what the join can be
// blamed for), and against the whole photo with the detector's own spread.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SceneAnalysis } from '../../main/server/recognition/analysis.js';
import { sceneFacings } from '../../main/server/recognition/bay/facings.js';
import { mul, scaling, translation, type H } from '../../main/server/recognition/bay/homography.js';
import { implausible } from '../../main/server/recognition/bay/register.js';
import { createDetector, type Detector } from '../../main/server/recognition/detector/index.js';
import { Identifier, PIPELINE_IDENTIFIER } from '../../main/server/recognition/identification/identifier.js';
import { analyzeScene, blockGray, matchingGray, type PipelineParts } from '../../main/server/recognition/pipeline.js';
import { composeShelf } from './fixtures.js';
import { DATA } from './fixtures.js';

const W = 1600;
let tmp: string;
let detector: Detector;
let parts: PipelineParts;
let n = 0;

interface Cut {
  path: string;
  /** Photo pixels -> source pixels. */
  truth: H;
}

type Raw = { data: Buffer; width: number; height: number };

async function source(name: string): Promise<Raw> {
  const { data, info } = await sharp(path.join(DATA, 'shelf-photos', name)).rotate().resize(W).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** A part of `src` ([x, y, w, h]), scaled by `scale` and brightened by `brightness`, as a JPEG photo. */
async function cut(src: Raw, [x, y, w, h]: number[], scale = 1, brightness = 1, shear = 0): Promise<Cut> {
  let img = sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } }).extract({ left: x, top: y, width: w, height: h });
  let truth = translation(x, y);
  if (shear !== 0) {
    // x' = x + shear * y, about the top-left corner: a slanting shot, as far as an affine goes.
    img = sharp(await img.affine([[1, shear], [0, 1]], { background: '#000' }).raw().toBuffer(), { raw: { width: Math.round(w + Math.abs(shear) * h), height: h, channels: 3 } });
    truth = mul(truth, [1, -shear, 0, 0, 1, 0, 0, 0, 1]);
  }
  if (scale !== 1) {
    img = img.resize(Math.round((w + Math.abs(shear) * h) * scale));
    truth = mul(truth, scaling(1 / scale));
  }
  const file = path.join(tmp, `p${n++}.jpg`);
  writeFileSync(file, await img.modulate({ brightness }).jpeg({ quality: 90 }).toBuffer());
  return { path: file, truth };
}

const scene = (cuts: readonly Cut[]) => analyzeScene(cuts.map((c, i) => ({ id: `photo-${i + 1}`, path: c.path })), parts);
const total = (a: SceneAnalysis) => sceneFacings(a).length;

/** The same analysis with each photo placed where it was really cut from: the merge the join aims at. */
function placedTruly(a: SceneAnalysis, cuts: readonly Cut[]): SceneAnalysis {
  return { ...a, bay: { width: 0, height: 0, ms: 0, photos: cuts.map((c, i) => ({ image: `photo-${i + 1}`, joined: true, transform: c.truth, joined_to: null, overlap: null, reason: null, message: null })) } };
}

/** Largest distance, in source pixels, between where the join and the truth put points of a photo (relative to photo 1). */
function cornerError(a: SceneAnalysis, cuts: readonly Cut[], i: number): number {
  const t0 = a.bay!.photos[0].transform!;
  const ti = a.bay!.photos[i].transform!;
  const { width, height } = a.images[i];
  let worst = 0;
  for (const [x, y] of [[0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]].map(([u, v]) => [u * width, v * height])) {
    const p = apply(ti, x, y);
    // Bay -> photo 1 -> source, by photo 1's truth.
    const inv = invert(t0)!;
    const q = apply(inv, p.x, p.y);
    const s = apply(cuts[0].truth, q.x, q.y);
    const r = apply(cuts[i].truth, x, y);
    worst = Math.max(worst, Math.hypot(s.x - r.x, s.y - r.y));
  }
  return worst;
}

function apply(h: H, x: number, y: number) {
  const w = h[6] * x + h[7] * y + h[8];
  return { x: (h[0] * x + h[1] * y + h[2]) / w, y: (h[3] * x + h[4] * y + h[5]) / w };
}
function invert(m: H): H | null {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [A, -(b * i - c * h), b * f - c * e, B, a * i - c * g, -(a * f - c * d), C, -(a * h - b * g), a * e - b * d].map((v) => v / det);
}

let whole: Raw;
let wholeCount: number;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'bay-'));
  detector = await createDetector();
  parts = { detector, identifier: new Identifier(PIPELINE_IDENTIFIER) };
  whole = await source('test_1175.jpg');
  const w = await cut(whole, [0, 0, whole.width, whole.height]);
  wholeCount = total(await scene([w]));
}, 120_000);
afterAll(async () => {
  await detector?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('a bay of overlapping photos', () => {
  it('joins two photos given out of order, the second farther away and brighter, and counts each facing once', async () => {
    const cw = Math.round(whole.width * 0.6);
    const left = await cut(whole, [0, 0, cw, whole.height]);
    const right = await cut(whole, [whole.width - cw, 0, cw, whole.height], 0.85, 1.15);
    const a = await scene([right, left]);
    expect(a.bay!.photos.map((p) => p.joined)).toEqual([true, true]);
    expect(cornerError(a, [right, left], 1)).toBeLessThan(whole.width * 0.015);
    const bay = total(a);
    const summed = a.images.reduce((s, i) => s + i.products.length, 0);
    expect(bay).toBeLessThan(summed - 5);
    expect(Math.abs(bay - total(placedTruly(a, [right, left])))).toBeLessThanOrEqual(1);
    // The detector's own spread between cut photos and the whole one: reported by the bench.
    expect(Math.abs(bay - wholeCount)).toBeLessThanOrEqual(Math.max(3, wholeCount * 0.2));
    // One bay: every facing on rack 0, its shelves running through both photos.
    expect(new Set(sceneFacings(a).map((f) => f.rack_index))).toEqual(new Set([0]));
  }, 120_000);

  it('joins a photo stored turned with an EXIF orientation as the photo it shows', async () => {
    const cw = Math.round(whole.width * 0.6);
    const left = await cut(whole, [0, 0, cw, whole.height]);
    const right = await cut(whole, [whole.width - cw, 0, cw, whole.height], 0.9);
    // A phone held sideways: the pixels stored a quarter turn off, the tag saying how to show them.
    const turnedFile = path.join(tmp, `p${n++}.jpg`);
    writeFileSync(turnedFile, await sharp(right.path).rotate(270).withMetadata({ orientation: 6 }).jpeg({ quality: 90 }).toBuffer());
    const stored = await sharp(turnedFile).metadata();
    const shown = await sharp(right.path).metadata();
    expect([stored.orientation, stored.width, stored.height]).toEqual([6, shown.height, shown.width]);
    const turned = { path: turnedFile, truth: right.truth };
    const a = await scene([turned, left]);
    expect(a.bay!.photos.map((p) => p.joined)).toEqual([true, true]);
    expect([a.images[0].width, a.images[0].height]).toEqual([shown.width, shown.height]);
    expect(cornerError(a, [turned, left], 1)).toBeLessThan(whole.width * 0.015);
    expect(Math.abs(total(a) - total(placedTruly(a, [turned, left])))).toBeLessThanOrEqual(1);
  }, 120_000);

  it('joins three photos in a row with a slanted and a rotated one, and four in a 2x2 grid', async () => {
    const cw = Math.round(whole.width * 0.42);
    const step = Math.round((whole.width - cw) / 2);
    const row = [
      await cut(whole, [step, 0, cw, whole.height], 1, 0.9, 0.04),
      await cut(whole, [0, 0, cw, whole.height], 0.9),
      await cut(whole, [2 * step, 0, whole.width - 2 * step, whole.height], 1.1, 1.1),
    ];
    const a = await scene(row);
    expect(a.bay!.photos.map((p) => p.joined)).toEqual([true, true, true]);
    expect(Math.abs(total(a) - total(placedTruly(a, row)))).toBeLessThanOrEqual(1);

    const gw = Math.round(whole.width * 0.6);
    const gh = Math.round(whole.height * 0.6);
    const grid = [
      await cut(whole, [0, 0, gw, gh]),
      await cut(whole, [whole.width - gw, 0, gw, gh], 0.9),
      await cut(whole, [0, whole.height - gh, gw, gh], 1, 1.1),
      await cut(whole, [whole.width - gw, whole.height - gh, gw, gh], 1.1, 0.9),
    ];
    const g = await scene(grid);
    expect(g.bay!.photos.map((p) => p.joined)).toEqual([true, true, true, true]);
    expect(Math.abs(total(g) - total(placedTruly(g, grid)))).toBeLessThanOrEqual(1);
  }, 240_000);

  it('reports a photo of another shelf, a blank photo and joins the same photo twice as one', async () => {
    const other = await source('test_2008.jpg');
    const cw = Math.round(whole.width * 0.6);
    const left = await cut(whole, [0, 0, cw, whole.height]);
    const right = await cut(whole, [whole.width - cw, 0, cw, whole.height]);
    const stranger = await cut(other, [0, 0, Math.round(other.width * 0.6), other.height]);
    const blankFile = path.join(tmp, 'blank.jpg');
    writeFileSync(blankFile, await sharp({ create: { width: 900, height: 1200, channels: 3, background: '#777' } }).jpeg().toBuffer());
    const blank = { path: blankFile, truth: translation(0, 0) };
    const a = await scene([left, stranger, right, blank]);
    const photos = a.bay!.photos;
    expect(photos.map((p) => p.joined)).toEqual([true, false, true, false]);
    expect(photos[1].reason).not.toBeNull();
    expect(photos[1].message).toMatch(/^Photo 2 /);
    expect(photos[3].reason).toBe('no_features');
    // The stranger is its own rack, counted as today.
    const facings = sceneFacings(a);
    expect(facings.filter((f) => f.image === 'photo-2').every((f) => f.rack_index === 1)).toBe(true);
    expect(facings.filter((f) => f.image === 'photo-2')).toHaveLength(a.images[1].products.length);

    const twice = await scene([left, { ...left }]);
    expect(twice.bay!.photos.map((p) => p.joined)).toEqual([true, true]);
    expect(Math.abs(total(twice) - twice.images[0].products.length)).toBeLessThanOrEqual(1);
  }, 240_000);

  it('holds on a shelf of identical packs', async () => {
    const rows: Array<Array<[string, number]>> = [[['fanta_pet', 16]], [['sprite_pet', 16]], [['fanta_pet', 16]]];
    const shelf = await composeShelf(rows);
    const { data, info } = await sharp(shelf.jpeg).raw().toBuffer({ resolveWithObject: true });
    const src = { data, width: info.width, height: info.height };
    const cw = Math.round(src.width * 0.62);
    const cuts = [await cut(src, [src.width - cw, 0, cw, src.height], 0.9), await cut(src, [0, 0, cw, src.height])];
    const a = await scene(cuts);
    expect(a.bay!.photos.map((p) => p.joined)).toEqual([true, true]);
    expect(cornerError(a, cuts, 1)).toBeLessThan(src.width * 0.02);
    expect(Math.abs(total(a) - shelf.products.length)).toBeLessThanOrEqual(1);
  }, 120_000);
});

describe('a shelf that repeats itself', () => {
  // An exactly periodic shelf (every photo about one repeat wide): a pair of photos matches one repeat
  // off with pixels agreeing as well as at the true place (NCC 0.9+) except where one photo shows the
  // shelf's end; the outer photos, which do not overlap, match that way too. Before the registration
  // looked at the shelf's ends the bay was 70 facings off.
  it('joins along the true neighbours, not a repeat that matches as well', async () => {
    // Each row three facings of each product in turn, every row one product on: the shelf shifted
    // down a row and three packs along is nearly itself, and the outer photos match that way.
    const products = ['fanta_pet', 'sprite_pet', 'cocacola_pet', 'cream_soda_pet', 'minute_maid'] as const;
    const rows = Array.from({ length: 6 }, (_, r) => Array.from({ length: 12 }, (_, k) => [products[(r + k) % 5], 3] as [string, number]));
    const shelf = await composeShelf(rows);
    const { data, info } = await sharp(shelf.jpeg).raw().toBuffer({ resolveWithObject: true });
    const src = { data, width: info.width, height: info.height };
    const cw = Math.round(src.width * 0.42);
    const step = Math.round(src.width * 0.29);
    const cuts = [
      await cut(src, [src.width - cw, 0, cw, src.height], 1.2),
      await cut(src, [0, 0, cw, src.height]),
      await cut(src, [step, 0, cw, src.height], 0.9),
    ];
    const a = await scene(cuts);
    expect(a.bay!.photos.map((p) => p.joined)).toEqual([true, true, true]);
    // The outer photos do not overlap: each is joined to the middle one.
    expect(a.bay!.photos.map((p) => p.joined_to)).toEqual([null, 'photo-3', 'photo-1']);
    expect(Math.abs(total(a) - total(placedTruly(a, cuts)))).toBeLessThanOrEqual(1);
  }, 120_000);
});

describe('wild transforms', () => {
  const photo = { width: 1000, height: 1500 };
  it('takes a second shot: shifted, a little rotated, scaled, in slight perspective', () => {
    const r = (2 * Math.PI) / 180;
    expect(implausible([Math.cos(r) * 0.9, -Math.sin(r) * 0.9, 400, Math.sin(r) * 0.9, Math.cos(r) * 0.9, 20, 0, 0, 1], photo)).toBe(false);
    expect(implausible([1, 0, 300, 0, 1, 0, 0.00008, 0, 1], photo)).toBe(false);
  });
  it('rejects a mirror, a big zoom, a quarter turn, a squeeze and a strong perspective', () => {
    expect(implausible([-1, 0, 1000, 0, 1, 0, 0, 0, 1], photo)).toBe(true);
    expect(implausible([5, 0, 0, 0, 5, 0, 0, 0, 1], photo)).toBe(true);
    expect(implausible([0, -1, 1500, 1, 0, 0, 0, 0, 1], photo)).toBe(true);
    expect(implausible([1, 0, 0, 0, 0.3, 0, 0, 0, 1], photo)).toBe(true);
    expect(implausible([1, 0, 0, 0, 1, 0, 0.001, 0, 1], photo)).toBe(true);
  });
});

describe("the grey copy a 12 MP photo's features are matched on", () => {
  it('averages whole blocks, then resamples to the matching size: the size and the pixels of a plain resampling', async () => {
    const [w, h] = [4050, 3034];
    const data = new Uint8Array(w * h * 3);
    // Stripes and a gradient: detail at several scales.
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set([(x * 255) / w, (Math.floor(x / 40) + Math.floor(y / 40)) % 2 ? 220 : 30, (y * 255) / h], (y * w + x) * 3);
    const quick = await matchingGray({ data, width: w, height: h, channels: 3 });
    const luma = blockGray({ data, width: w, height: h, channels: 3 }, 1);
    const plain = await sharp(luma.gray, { raw: { width: w, height: h, channels: 1 } }).resize(quick.gw, quick.gh).extractChannel(0).raw().toBuffer();
    expect(quick.gray.length).toBe(quick.gw * quick.gh);
    for (const [pw, ph] of [[1120, 1500], [800, 600]]) {
      const g = await matchingGray({ data: new Uint8Array(pw * ph * 3), width: pw, height: ph, channels: 3 });
      expect(g.gray.length).toBe(g.gw * g.gh);
    }
    expect([quick.gw, quick.gh]).toEqual([Math.round(w * Math.sqrt(640_000 / (w * h))), Math.round(h * Math.sqrt(640_000 / (w * h)))]);
    // The same picture but for the filters' treatment of the sharp stripes: correlated, no shift, no bias.
    const mean = (v: ArrayLike<number>) => Array.from(v).reduce((s, x) => s + x, 0) / v.length;
    const [ma, mb] = [mean(plain), mean(quick.gray)];
    let [sab, saa, sbb] = [0, 0, 0];
    for (let i = 0; i < plain.length; i++) [sab, saa, sbb] = [sab + (plain[i] - ma) * (quick.gray[i] - mb), saa + (plain[i] - ma) ** 2, sbb + (quick.gray[i] - mb) ** 2];
    expect(sab / Math.sqrt(saa * sbb)).toBeGreaterThan(0.97);
    expect(Math.abs(ma - mb)).toBeLessThan(1);
    // A block's grey is its pixels' mean luma.
    const one = blockGray({ data: new Uint8Array([255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255]), width: 2, height: 2, channels: 3 }, 2);
    expect(one).toEqual({ gray: new Uint8Array([Math.round((77 + 150 + 29 + 256) / 4)]), gw: 1, gh: 1 });
  });
});
