// A request's stamps (ChangeStamps.set; since issue 40 a read's key stamp comes from it too). The
// caches keep what they computed under the request's stamp and compare it with fresh reads of
// `changeStamp`, `tableStamp` and `keyStamp`: the texts must be the same when nothing changed (else
// nothing is ever kept), and a set must show every write committed before it was first asked.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { createApiKey } from '../../main/server/domain/api-keys.js';
import { brands } from '../../main/server/domain/catalogs.js';
import { createRecord } from '../../main/server/domain/resource.js';
import { DATABASE_FILE, openDatabase, type OpenDatabase } from '../../main/server/storage/database.js';
import { write } from '../../main/server/storage/transaction.js';

const dirs: string[] = [];
const opened: OpenDatabase[] = [];
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const now = new Date().toISOString();
// A table followed in the database file (migration 0027), one followed by TEMP triggers, none.
const TABLES = ['skus', 'brands', 'recognition_jobs', 'no_such_table'];

it('SQLite: a stamp set reads what fresh stamps read, as of its first use, and moves with every write', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-stamp-set-'));
  dirs.push(dir);
  const db = await openDatabase(dir);
  opened.push(db);
  const same = async () => {
    const set = await db.stampSet();
    expect(await set.data()).toBe(await db.changeStamp());
    expect(await set.keys()).toBe(await db.keyStamp());
    for (const t of TABLES) expect(await set.table(t), t).toBe(await db.tableStamp(t));
  };
  await same();
  // Taken before a write and first asked after it: it shows the write.
  const lazy = await db.stampSet();
  const before = { data: await db.changeStamp(), skus: await db.tableStamp('skus'), brands: await db.tableStamp('brands'), keys: await db.keyStamp() };
  await write(db.db, async (ctx) => void (await ctx.trx.insertInto('skus').values({ id: 's1', name: 'S', created_at: now, updated_at: now } as never).execute()));
  expect(await lazy.table('skus')).not.toBe(before.skus);
  expect(await lazy.table('brands')).toBe(before.brands);
  expect(await lazy.data()).not.toBe(before.data);
  await same();
  await write(db.db, (ctx) => createRecord(ctx, brands, { id: 'b1', name: 'One' }));
  expect(await (await db.stampSet()).table('brands')).not.toBe(before.brands);
  await same();
  // A key made: the keys' stamp moves, in a set too.
  const keys = await (await db.stampSet()).keys();
  await write(db.db, (ctx) => createApiKey(ctx, { name: 'k', role: 'admin' }));
  expect(await (await db.stampSet()).keys()).not.toBe(keys);
  await same();
  // Another connection's commit (another process, the CLI): every stamp it may have changed moves.
  const other = await (await db.stampSet()).table('recognition_jobs');
  const data = await db.changeStamp();
  const c = new Database(path.join(dir, DATABASE_FILE));
  c.prepare('INSERT INTO skus (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run('s2', 'T', now, now);
  c.close();
  const after = await db.stampSet();
  expect(await after.data()).not.toBe(data);
  expect(await after.table('recognition_jobs')).not.toBe(other);
  await same();
});
