// storage/prepared-query.ts: a query built and compiled once runs with each call's values, keeps the
// values its builder fixed, and an insert leaves out undefined columns as Kysely does. (PostgreSQL's
// placement of parameters is exercised by test/api/postgres.test.ts, whose writes go through it.)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../main/server/storage/database.js';
import { insertRow, preparedQuery } from '../../main/server/storage/prepared-query.js';
import { write } from '../../main/server/storage/transaction.js';

let dataDir: string;
let database: OpenDatabase;
beforeEach(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-prepared-'));
  database = await openDatabase(dataDir);
});
afterEach(async () => {
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const at = '2026-01-01T00:00:00.000Z';

it('runs with each call’s values, in a transaction too, and keeps the values the builder fixed', async () => {
  const { db } = database;
  for (const [id, name] of [['a', 'Alpha'], ['b', 'Beta'], ['c', 'Gamma']]) {
    await insertRow(db, 'brands', { id, name, created_at: at, updated_at: at });
  }
  // Two arguments in the opposite order of their parameters, and a fixed limit between them.
  const q = preparedQuery<[string, string], { id: string }>(2, (d, name, notId) =>
    d.selectFrom('brands').select('id').where('id', '!=', notId).where('name', '>=', name).orderBy('id').limit(1),
  );
  expect((await q.execute(db, 'Beta', 'b')).rows).toEqual([{ id: 'c' }]);
  expect((await q.execute(db, 'Alpha', 'a')).rows).toEqual([{ id: 'b' }]);
  // Inside a write: the transaction's connection, with its uncommitted row.
  const seen = await write(db, async ({ trx }) => {
    await insertRow(trx, 'brands', { id: 'd', name: 'Delta', created_at: at, updated_at: at });
    return (await q.execute(trx, 'Delta', 'c')).rows;
  });
  expect(seen).toEqual([{ id: 'd' }]);
});

it('an insert leaves out undefined columns (their defaults apply) and a new set of columns is a new shape', async () => {
  const { db } = database;
  await insertRow(db, 'brands', { id: 'a', name: 'A', created_at: at, updated_at: at });
  await insertRow(db, 'tasks', { id: 't1', name: 'T1', is_enabled: undefined, is_required: 1, created_at: at, updated_at: at });
  await insertRow(db, 'tasks', { id: 't2', name: 'T2', is_enabled: 0, is_required: undefined, created_at: at, updated_at: at });
  const rows = await db.selectFrom('tasks').select(['id', 'is_enabled', 'is_required']).orderBy('id').execute();
  expect(rows).toEqual([
    { id: 't1', is_enabled: 1, is_required: 1 },
    { id: 't2', is_enabled: 0, is_required: 0 },
  ]);
});

it('refuses a builder that does not use an argument as a parameter (it would be silently ignored)', async () => {
  const q = preparedQuery<[string]>(1, (d) => d.selectFrom('brands').select('id').where('id', '=', 'fixed'));
  await expect(q.execute(database.db, 'a')).rejects.toThrow(/argument 0 is not a parameter/);
});
