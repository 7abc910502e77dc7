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

  it('moves a legacy folder (database with its WAL files) into an empty data folder', async () => {
    const legacy = path.join(root, 'shelf-audit');
    const dir = path.join(root, 'Shelf Audit');
    mkdirSync(path.join(legacy, 'uploads'), { recursive: true });
    for (const f of ['shelf-audit.sqlite', 'shelf-audit.sqlite-wal', 'shelf-audit.sqlite-shm']) writeFileSync(path.join(legacy, f), f);
    writeFileSync(path.join(legacy, 'uploads', 'a.jpg'), 'a');
    // Chromium has already made its own files in the new user-data folder: they stay, the legacy copy too.
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'Preferences'), 'new');
    writeFileSync(path.join(legacy, 'Preferences'), 'old');

    const result = await migrateDataDir(dir, { legacyDirs: [legacy] });
    expect(result.adoptedFrom).toBe(legacy);
    for (const f of ['shelf-audit.sqlite', 'shelf-audit.sqlite-wal', 'shelf-audit.sqlite-shm']) {
      expect(readFileSync(path.join(dir, f), 'utf8')).toBe(f);
    }
    expect(readFileSync(path.join(dir, 'uploads', 'a.jpg'), 'utf8')).toBe('a');
    expect(readFileSync(path.join(dir, 'Preferences'), 'utf8')).toBe('new');
    expect(readFileSync(path.join(legacy, 'Preferences'), 'utf8')).toBe('old');
    expect(existsSync(path.join(legacy, 'shelf-audit.sqlite'))).toBe(false);
    expect(layoutOf(dir)).toBe(CURRENT_LAYOUT_VERSION);
  });

  it('never adopts a legacy folder over data already in place', async () => {
    const legacy = path.join(root, 'shelf-audit');
    const dir = path.join(root, 'Shelf Audit');
    mkdirSync(legacy);
    mkdirSync(dir);
    writeFileSync(path.join(legacy, 'shelf-audit.sqlite'), 'old');
    writeFileSync(path.join(dir, 'shelf-audit.sqlite'), 'current');
    const result = await migrateDataDir(dir, { legacyDirs: [legacy] });
    expect(result.adoptedFrom).toBeUndefined();
    expect(readFileSync(path.join(dir, 'shelf-audit.sqlite'), 'utf8')).toBe('current');
    expect(readFileSync(path.join(legacy, 'shelf-audit.sqlite'), 'utf8')).toBe('old');
  });
});
