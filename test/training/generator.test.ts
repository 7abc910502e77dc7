// generator.py, the source of every training and held-out scene: valid scenes of every style, and the
// same scenes from the same seed. The bench regenerates its held-out sets from seeds on a fresh checkout,
// so a change that redraws them would silently move the figures the model card reports.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { runPython, TRAINING } from './python.js';

type Scene = { width: number; height: number; boxes: number[][]; tags: number[][]; signs: number[][] };

const work = mkdtempSync(path.join(tmpdir(), 'shelf-generator-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const fixtures = path.resolve('test/fixtures/training');
const readScene = (file: string): Scene => JSON.parse(readFileSync(file, 'utf8'));

function generate(name: string, args: string[], env?: Record<string, string>): string {
  const out = path.join(work, name);
  runPython(['generator.py', out, ...args], env);
  return out;
}

function expectValidScene(scene: Scene, image: { width?: number; height?: number }) {
  expect(image.width).toBe(scene.width);
  expect(image.height).toBe(scene.height);
  for (const [x1, y1, x2, y2] of scene.boxes) {
    expect(x1).toBeGreaterThanOrEqual(0);
    expect(y1).toBeGreaterThanOrEqual(0);
    expect(x2).toBeLessThanOrEqual(scene.width);
    expect(y2).toBeLessThanOrEqual(scene.height);
    // The generator drops products with less than 3 px of them in the photo.
    expect(x2 - x1).toBeGreaterThanOrEqual(3);
    expect(y2 - y1).toBeGreaterThanOrEqual(3);
  }
}

// The bench's held-out sets (bench/detector-accuracy.bench.mjs reads the same list): style and seed.
const HELD_OUT: Array<[number, number]> = JSON.parse(readFileSync(path.join(TRAINING, 'held-out-sets.json'), 'utf8')).map(
  (set: { style: number; seed: number }) => [set.style, set.seed],
);

describe('generator.py', () => {
  it.each(HELD_OUT)('style %i, seed %i: a valid scene, the one the held-out set was scored on', async (style, seed) => {
    const out = generate(`style${style}`, ['--count', '1', '--seed', String(seed), '--style', String(style)]);
    const scene = readScene(path.join(out, '000000.json'));
    expectValidScene(scene, await sharp(path.join(out, '000000.jpg')).metadata());
    // Phone-photo shapes at the detector's scale: 700 to 1100 px on the long side.
    expect(Math.max(scene.width, scene.height)).toBeGreaterThanOrEqual(700);
    expect(Math.max(scene.width, scene.height)).toBeLessThanOrEqual(1100);

    const pinned = readScene(path.join(fixtures, `style${style}-seed${seed}-000000.json`));
    expect([scene.width, scene.height]).toEqual([pinned.width, pinned.height]);
    expect(scene.boxes).toHaveLength(pinned.boxes.length);
    // Boxes are written to 0.1 px; allow one rounding step for another CPU's arithmetic.
    const drift = Math.max(...scene.boxes.flatMap((b, i) => b.map((v, k) => Math.abs(v - pinned.boxes[i][k]))));
    expect(drift).toBeLessThanOrEqual(0.11);
    // And the pixels: a helper's name shadowed at module level once redrew every scene with the same boxes.
    const sha = JSON.parse(readFileSync(path.join(fixtures, 'held-out-jpeg-sha256.json'), 'utf8'))[`style${style}-seed${seed}`];
    expect(createHash('sha256').update(readFileSync(path.join(out, '000000.jpg'))).digest('hex')).toBe(sha);
  });

  it('draws the same files from a seed whatever the number of worker processes', () => {
    const args = ['--count', '3', '--seed', '4242', '--style', '6', '--start', '7'];
    const one = generate('workers1', [...args, '--workers', '1']);
    const three = generate('workers3', [...args, '--workers', '3']);
    const files = readdirSync(one).sort();
    expect(files).toEqual(['000007.jpg', '000007.json', '000008.jpg', '000008.json', '000009.jpg', '000009.json']);
    expect(readdirSync(three).sort()).toEqual(files);
    for (const f of files) expect(readFileSync(path.join(three, f)).equals(readFileSync(path.join(one, f)))).toBe(true);
    // and other seeds draw other scenes
    const other = generate('seed4243', ['--count', '1', '--seed', '4243', '--style', '6', '--start', '7']);
    expect(readFileSync(path.join(other, '000007.json'), 'utf8')).not.toBe(readFileSync(path.join(one, '000007.json'), 'utf8'));
  });

  it('records the price tags it draws apart from the products; style 7 adds peg tags and changes no product', async () => {
    // Scene 3 of seed 78 has a pegboard bay: style 6 draws its shelf-edge tags, style 7 also a tag per hook.
    const args = ['--count', '1', '--seed', '78', '--start', '3'];
    const six = readScene(path.join(generate('tags6', [...args, '--style', '6']), '000003.json'));
    const seven = readScene(path.join(generate('tags7', [...args, '--style', '7']), '000003.json'));
    expect(seven.boxes).toEqual(six.boxes);
    expect(six.tags.length).toBeGreaterThan(5);
    expect(seven.tags.length).toBeGreaterThan(six.tags.length + 10);
    // Every shelf-edge tag of style 6 is one of style 7's.
    for (const t of six.tags) expect(seven.tags).toContainEqual(t);
    expect(six.signs.length).toBeGreaterThan(0);
    for (const scene of [six, seven]) {
      expectValidScene({ ...scene, boxes: [...scene.tags, ...scene.signs] }, { width: scene.width, height: scene.height });
    }
    // Tags are small: a shelf-edge label is far shorter than the products above it.
    const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];
    expect(median(seven.tags.map((t) => t[3] - t[1]))).toBeLessThan(median(seven.boxes.map((b) => b[3] - b[1])));
  });

  it("style 8 draws shelf-edge labels of the real ones' size and shape where style 7 drew small tags, and leaves rail scenes alone", () => {
    // Seed 78: scene 0 has label rails (style 8 draws them as style 7 did), scene 3 plain shelf edges.
    const scene = (style: number, start: number) =>
      readScene(path.join(generate(`s${style}-${start}`, ['--count', '1', '--seed', '78', '--start', String(start), '--style', String(style)]), `${String(start).padStart(6, '0')}.json`));
    const [rail7, rail8] = [scene(7, 0), scene(8, 0)];
    expect(rail8.tags).toEqual(rail7.tags);
    expect(rail8.boxes).toEqual(rail7.boxes);
    const [edge7, edge8] = [scene(7, 3), scene(8, 3)];
    expect(edge8.tags).not.toEqual(edge7.tags);
    expect(edge8.tags.length).toBeGreaterThan(10);
    expectValidScene({ ...edge8, boxes: [...edge8.tags, ...edge8.signs] }, { width: edge8.width, height: edge8.height });
    // The labels themselves, before the camera: 0.14 to 0.32 of a product high, 2 to 4.2 times as wide, inside
    // their edge strip, and the strip at least as tall as them.
    const out = runPython(['-c', `
import json, numpy as np
from generator import Generator
canvas = np.zeros((400, 1200, 3), np.uint8); tags = []
bottom = Generator.edge_labels(canvas, np.random.default_rng(5), 0, 1200, 100, 8, (90, 90, 90), 120.0, tags)
print(json.dumps({'bottom': bottom, 'tags': tags}))`]);
    const { bottom, tags } = JSON.parse(out) as { bottom: number; tags: number[][] };
    expect(tags.length).toBeGreaterThan(3);
    for (const [x1, y1, x2, y2] of tags) {
      expect(y2 - y1).toBeGreaterThanOrEqual(Math.floor(0.14 * 120));
      expect(y2 - y1).toBeLessThanOrEqual(0.32 * 120);
      expect((x2 - x1) / (y2 - y1)).toBeGreaterThanOrEqual(1.9);
      expect((x2 - x1) / (y2 - y1)).toBeLessThanOrEqual(4.3);
      expect(y1).toBeGreaterThanOrEqual(100);
      expect(y2).toBeLessThanOrEqual(bottom);
    }
  });

  it('style 9 prints its labels in TrueType faces, on the shelf edges, and draws the same products', async () => {
    const atlas = path.join(work, 'atlas.npz');
    runPython(['glyph_atlas.py', atlas]);
    // Seed 78, scene 3: plain shelf edges in style 8. Style 9 draws the same products (the labels' look comes from
    // its own stream, so the labels' places and the strips' heights, and with them the rows below, move a little)
    // and labels of the same size along the edges.
    const scene = (style: number) =>
      readScene(path.join(generate(`p${style}`, ['--count', '1', '--seed', '78', '--start', '3', '--style', String(style)], { GLYPH_ATLAS: atlas }), '000003.json'));
    const [s8, s9] = [scene(8), scene(9)];
    expect(s9.boxes).toHaveLength(s8.boxes.length);
    expect(s9.tags).not.toEqual(s8.tags);
    expect(s9.tags.length).toBeGreaterThan(10);
    expectValidScene({ ...s9, boxes: [...s9.tags, ...s9.signs] }, { width: s9.width, height: s9.height });
    const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];
    const heights = (s: Scene) => median(s.tags.map((t) => t[3] - t[1]));
    expect(heights(s9) / heights(s8)).toBeGreaterThan(0.7);
    expect(heights(s9) / heights(s8)).toBeLessThan(1.4);
    // One label: the price is printed (dark pixels on a light label, or light on a dark one), the same label from
    // the same stream, and no atlas is an error that names glyph_atlas.py, not a silent fallback.
    const out = runPython(['-c', `
import json, numpy as np
from generator import printed_label
a = printed_label(np.random.default_rng(3), 120, 40, (240, 240, 240)); b = printed_label(np.random.default_rng(3), 120, 40, (240, 240, 240))
g = a.mean(2)
print(json.dumps({'shape': list(a.shape), 'same': bool((a == b).all()), 'spread': float(np.percentile(g, 95) - np.percentile(g, 5))}))`], { GLYPH_ATLAS: atlas });
    const label = JSON.parse(out) as { shape: number[]; same: boolean; spread: number };
    expect(label.shape).toEqual([40, 120, 3]);
    expect(label.same).toBe(true);
    expect(label.spread).toBeGreaterThan(60);
    expect(() => runPython(['-c', 'import numpy as np; from generator import printed_label; printed_label(np.random.default_rng(0), 60, 20)'],
      { GLYPH_ATLAS: path.join(work, 'none.npz') })).toThrow(/glyph_atlas\.py/);
  });

  it('--procedural-only --size draws products of its own at that size, without the shared data', async () => {
    const out = generate('procedural', ['--count', '2', '--seed', '5', '--style', '2', '--procedural-only', '--size', '640x480'], {
      SHELF_DATA: path.join(work, 'no-such-folder'),
    });
    for (const n of ['000000', '000001']) {
      const scene = readScene(path.join(out, `${n}.json`));
      expect([scene.width, scene.height]).toEqual([640, 480]);
      expect(scene.boxes.length).toBeGreaterThan(0);
      expectValidScene(scene, await sharp(path.join(out, `${n}.jpg`)).metadata());
    }
  });
});
