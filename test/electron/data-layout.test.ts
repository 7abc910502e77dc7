import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CURRENT_LAYOUT_VERSION,
  DataLayoutTooNewError,
  LAYOUT_FILE,
  type LayoutStep,
  migrateDataDir,
  readLayoutVersion,
} from '../../main/host/data-layout.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-layout-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const layoutOf = (dir: string) => JSON.parse(readFileSync(path.join(dir, LAYOUT_FILE), 'utf8')).version;

describe('data directory layout migration', () => {
  it('creates a missing folder and stamps it with the current layout', async () => {
    const dir = path.join(root, 'Shelf Audit');
    const result = await migrateDataDir(dir);
    expect(result).toMatchObject({ from: 0, to: CURRENT_LAYOUT_VERSION });
    expect(layoutOf(dir)).toBe(CURRENT_LAYOUT_VERSION);
    // Running again is a no-op.
    expect(await migrateDataDir(dir)).toMatchObject({ from: CURRENT_LAYOUT_VERSION, applied: [] });
  });

  it('keeps a database from before versioning in place', async () => {
    const dir = path.join(root, 'data');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'shelf-audit.sqlite'), 'db');
    await migrateDataDir(dir);
    expect(readFileSync(path.join(dir, 'shelf-audit.sqlite'), 'utf8')).toBe('db');
    expect(layoutOf(dir)).toBe(CURRENT_LAYOUT_VERSION);
  });

  it('refuses a folder a newer app has laid out, and leaves it untouched', async () => {
    const dir = path.join(root, 'data');
    mkdirSync(dir);
    writeFileSync(path.join(dir, LAYOUT_FILE), JSON.stringify({ version: CURRENT_LAYOUT_VERSION + 1 }));
    await expect(migrateDataDir(dir)).rejects.toBeInstanceOf(DataLayoutTooNewError);
    expect(layoutOf(dir)).toBe(CURRENT_LAYOUT_VERSION + 1);
  });

  it('rejects a corrupt version file instead of guessing', async () => {
    const dir = path.join(root, 'data');
    mkdirSync(dir);
    writeFileSync(path.join(dir, LAYOUT_FILE), JSON.stringify({ version: 'two' }));
    await expect(readLayoutVersion(dir)).rejects.toThrow(/no valid layout version/);
  });

  it('applies pending steps in order and records each, so an interrupted migration resumes', async () => {
    const dir = path.join(root, 'data');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'photo.jpg'), 'jpeg');
    const ran: number[] = [];
    let failAt3 = true;
    const steps: LayoutStep[] = [
      // Listed out of order on purpose: the runner sorts by target version.
      { to: 3, description: 'three', apply: async () => { ran.push(3); if (failAt3) throw new Error('power cut'); } },
      { to: 1, description: 'one', apply: async () => { ran.push(1); } },
      {
        to: 2,
        description: 'move photos into uploads/',
        apply: async (d) => {
          ran.push(2);
          mkdirSync(path.join(d, 'uploads'));
          writeFileSync(path.join(d, 'uploads', 'photo.jpg'), readFileSync(path.join(d, 'photo.jpg')));
          rmSync(path.join(d, 'photo.jpg'));
        },
      },
    ];
    await expect(migrateDataDir(dir, { steps })).rejects.toThrow('power cut');
    expect(ran).toEqual([1, 2, 3]);
    expect(layoutOf(dir)).toBe(2);
    expect(existsSync(path.join(dir, 'uploads', 'photo.jpg'))).toBe(true);

    failAt3 = false;
    const result = await migrateDataDir(dir, { steps });
    expect(ran).toEqual([1, 2, 3, 3]);
    expect(result).toMatchObject({ from: 2, to: 3, applied: ['three'] });
    expect(layoutOf(dir)).toBe(3);
  });
});
