// compare.py: two evaluate.py reports side by side on the labelled regions, with a paired bootstrap over the
// photos (whether a model's gain on dev is more than the noise of 19 photos).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPython } from './python.js';

let tmp: string;
beforeAll(() => { tmp = mkdtempSync(path.join(os.tmpdir(), 'compare-')); });
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A report as evaluate.py writes it, with per-photo [objects, AP50] for each split. */
function report(name: string, splits: Record<string, Record<string, [number, number]>>): string {
  const labelled = Object.fromEntries(Object.entries(splits).map(([split, photos]) => [split, {
    per_photo: Object.fromEntries(Object.entries(photos).map(([p, [objects, ap]]) => [p, { objects, AP50: ap }])),
  }]));
  const file = path.join(tmp, `${name}.json`);
  writeFileSync(file, JSON.stringify({ labelled_photos: labelled }));
  return file;
}

describe('compare.py', () => {
  it('weights the per-photo differences by objects and bounds them with a paired bootstrap', () => {
    const photos = (shift: (i: number) => number) =>
      Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, [10 + i, 0.5 + shift(i)] as [number, number]]));
    const a = report('a', { dev: photos(() => 0), test: photos(() => 0) });
    // dev: B better on every photo by 0.05; test: B better on the two largest photos only, by 0.3.
    const b = report('b', { dev: photos(() => 0.05), test: photos((i) => (i >= 10 ? 0.3 : 0)) });
    const out = runPython(['compare.py', a, b, '--boot', '2000']);
    const r = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(r.dev.mean_difference).toBeCloseTo(0.05, 6);
    expect(r.dev.interval_90[0]).toBeCloseTo(0.05, 6); // no spread: every draw gives the same mean
    expect(r.dev).toMatchObject({ photos: 12, wins: 12, losses: 0, ties: 0 });
    const weighted = (0.3 * (20 + 21)) / Array.from({ length: 12 }, (_, i) => 10 + i).reduce((s, x) => s + x, 0);
    expect(r.test.mean_difference).toBeCloseTo(weighted, 6);
    expect(r.test.interval_90[0]).toBeLessThan(weighted); // two photos of twelve: the draw decides
    expect(r.test.interval_90[0]).toBeGreaterThanOrEqual(0);
    expect(r.test.interval_90[1]).toBeGreaterThan(weighted);
    expect(r.test).toMatchObject({ wins: 2, losses: 0, ties: 10 });
    expect(out).toContain('dev p3: 0.500 -> 0.550 (+0.050)');
  });

  it('refuses a report without labelled regions', () => {
    const bare = path.join(tmp, 'bare.json');
    writeFileSync(bare, JSON.stringify({ generated: {} }));
    expect(() => runPython(['compare.py', bare, bare])).toThrow(/has no labelled regions: run evaluate.py with --photos/);
  });
});
