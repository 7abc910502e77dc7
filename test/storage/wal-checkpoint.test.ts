// WAL checkpoints from a worker thread (storage/wal-checkpoint.ts; built JavaScript only: worker
// threads cannot load the TypeScript sources). The server's own connection only checkpoints past a
// high threshold, so pages reaching the database file below it are the worker's doing; closing
// stops the worker; everything committed is still there when reopened.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const DIST = path.resolve('dist/main/server/storage');
let dataDir: string | undefined;
afterEach(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

describe('WAL checkpoints on a worker thread (build)', () => {
  it('moves committed pages into the database file while the server connection only appends', async () => {
    if (!existsSync(path.join(DIST, 'database.js'))) throw new Error('dist/ is missing: run `npm run build` (npm test does) before this test');
    const { openDatabase, DATABASE_FILE } = await import(path.join(DIST, 'database.js'));
    const { CHECKPOINT_INTERVAL_MS } = await import(path.join(DIST, 'wal-checkpoint.js'));
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-checkpoint-'));
    const file = path.join(dataDir, DATABASE_FILE);
    const database = await openDatabase(dataDir);
    const { sql } = await import('kysely');
    // Wait out the migrations' own pages, then measure what 2,000 rows (about 100 pages, far below
    // the connection's threshold) do to the database file.
    await new Promise((r) => setTimeout(r, 3 * CHECKPOINT_INTERVAL_MS));
    const before = statSync(file).size;
    await sql`CREATE TABLE checkpoint_probe (n INTEGER PRIMARY KEY, text TEXT)`.execute(database.db);
    for (let i = 0; i < 20; i++) {
      const rows = Array.from({ length: 100 }, (_, j) => sql`(${i * 100 + j}, ${'x'.repeat(150)})`);
      await sql`INSERT INTO checkpoint_probe (n, text) VALUES ${sql.join(rows)}`.execute(database.db);
    }
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(100 * 4096);
    let grown = false;
    for (let i = 0; i < 50 && !grown; i++) {
      await new Promise((r) => setTimeout(r, CHECKPOINT_INTERVAL_MS));
      grown = statSync(file).size >= before + 80 * 4096;
    }
    expect(grown).toBe(true);
    await database.close();

    const reopened = await openDatabase(dataDir);
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM checkpoint_probe`.execute(reopened.db);
    expect(Number(rows[0].n)).toBe(2000);
    await reopened.close();
  });

  it('lets a process that only closes its database finish the close before it exits', async () => {
    // `serve --workers N`'s primary opens the database to migrate it, closes it and goes on: an
    // unref'd worker stopping was no reason to stay alive, and the process left mid-close.
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-checkpoint-'));
    const script = `const { openDatabase } = await import(${JSON.stringify(path.join(DIST, 'database.js'))});
      const database = await openDatabase(${JSON.stringify(dataDir)});
      await database.close();
      console.log('closed');`;
    // Twice: the second open finds the schema migrated and closes while the worker is still starting.
    for (let i = 0; i < 2; i++) expect(execFileSync(process.execPath, ['--input-type=module', '-e', script]).toString()).toBe('closed\n');
  });
});
