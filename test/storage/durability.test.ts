// What the server's SQLite connection promises about a write once it is answered: WAL (readers never
// wait for a write), foreign keys enforced, and synchronous = FULL, so an acknowledged commit is on disk
// and survives a power loss or OS crash, not only a crash of the process.
import { sql } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../main/server/storage/database.js';

let dataDir: string | undefined;
let database: OpenDatabase | undefined;
afterEach(async () => {
  await database?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

it('the SQLite connection runs in WAL mode, with foreign keys, and syncs every commit (synchronous = FULL)', async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-durability-'));
  database = await openDatabase(dataDir);
  const pragma = async (name: string) => (await sql.raw(`PRAGMA ${name}`).execute(database!.db)).rows[0] as Record<string, unknown>;
  expect(await pragma('journal_mode')).toEqual({ journal_mode: 'wal' });
  expect(await pragma('foreign_keys')).toEqual({ foreign_keys: 1 });
  // 2 is FULL (0 OFF, 1 NORMAL, 3 EXTRA).
  expect(await pragma('synchronous')).toEqual({ synchronous: 2 });
});
