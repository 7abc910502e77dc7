// `npm run detect -- --json IMAGE...`, the interface other tools use: one JSON line per image, errors on
// stderr without stopping the other images, non-zero exit when any image failed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Box } from '../../main/server/recognition/detector/index.js';
import { iou, recallPrecision, type Truth } from './match.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const CLI = path.join(root, 'dist/main/cli/detect.js');
const shelf = path.join(root, 'test/fixtures/detector/shelf-960x720.jpg');
const truth = JSON.parse(readFileSync(path.join(root, 'test/fixtures/detector/shelf-960x720.json'), 'utf8')) as {
  boxes: Truth[];
};
let tmp: string;

/** True when dist/ lacks the CLI or is older than any main/ source (a standalone run after edits). */
function buildIsStale(): boolean {
  if (!existsSync(CLI)) return true;
  const built = statSync(CLI).mtimeMs;
  return readdirSync(path.join(root, 'main'), { recursive: true, withFileTypes: true }).some(
    (e) => e.isFile() && e.name.endsWith('.ts') && statSync(path.join(e.parentPath, e.name)).mtimeMs > built,
  );
}

beforeAll(() => {
  // `npm test` builds first; compile main/ here only when the build is missing or stale.
  if (buildIsStale()) {
    const r = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
    // Type errors elsewhere in main/ still emit; only a missing entry point stops this test.
    if (r.status !== 0 && !existsSync(CLI)) throw new Error('could not build main/');
  }
  tmp = mkdtempSync(path.join(os.tmpdir(), 'detect-cli-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('detect CLI', () => {
  it('prints one JSON line per image and reports a corrupt one without stopping', () => {
    const corrupt = path.join(tmp, 'corrupt.jpg');
    writeFileSync(corrupt, readFileSync(shelf).subarray(0, 3000));
    const r = spawnSync(process.execPath, [CLI, '--json', shelf, corrupt, shelf], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('corrupt.jpg');
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      const d = JSON.parse(line);
      expect(Object.keys(d)).toEqual(['image', 'width', 'height', 'ms', 'boxes']);
      expect(d.image).toBe(shelf);
      expect([d.width, d.height]).toEqual([960, 720]);
      expect(d.ms).toBeGreaterThan(0);
      for (const b of d.boxes) expect(Object.keys(b)).toEqual(['x1', 'y1', 'x2', 'y2', 'score']);
      expect(recallPrecision(truth.boxes, d.boxes).recall).toBeGreaterThanOrEqual(0.8);
    }
  });

  it('exits 0 when every image is read, and 2 with usage when given none', () => {
    const ok = spawnSync(process.execPath, [CLI, '--json', shelf], { cwd: root, encoding: 'utf8' });
    expect(ok.status).toBe(0);
    expect(ok.stderr).toBe('');
    const none = spawnSync(process.execPath, [CLI, '--json'], { cwd: root, encoding: 'utf8' });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/usage: detect/);
  });
  it('--iou-threshold sets how much two reported boxes may overlap, and refuses a value outside (0, 1]', () => {
    const run = (iou: string) => spawnSync(process.execPath, [CLI, '--json', '--iou-threshold', iou, shelf], { cwd: root, encoding: 'utf8' });
    const boxesAt = (iou: string) => {
      const r = run(iou);
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout).boxes as Box[];
    };
    const strict = boxesAt('0.1');
    const all = boxesAt('1');
    expect(strict.length).toBeGreaterThan(0);
    expect(all.length).toBeGreaterThan(strict.length);
    for (const [i, a] of strict.entries()) for (const b of strict.slice(i + 1)) expect(iou([a.x1, a.y1, a.x2, a.y2], b)).toBeLessThanOrEqual(0.1 + 1e-3);
    for (const bad of ['0', '1.5', 'x']) {
      const r = run(bad);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/iouThreshold must be above 0 and at most 1/);
    }
  });
});
