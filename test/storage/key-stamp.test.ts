// The key stamp (storage/change-stamp.ts, migration 0020): the key cache of http/auth.ts is kept under
// it, so it must move with every change to an API key, committed by this connection or another, and
// must not move with a record write (else the cache would miss on every write, as it did).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../main/server/domain/api-keys.js';
import { brands } from '../../main/server/domain/catalogs.js';
import { insertRecord } from '../../main/server/domain/resource.js';
import { openDatabase, openDatabaseTarget, type OpenDatabase } from '../../main/server/storage/database.js';
import { write } from '../../main/server/storage/transaction.js';
import { PgCluster } from '../../scripts/pg-cluster.mjs';

async function movesWithKeysOnly(a: OpenDatabase, b: OpenDatabase): Promise<void> {
  const seen = new Set<string | null>();
  const stamp = async (d: OpenDatabase) => {
    const s = await d.keyStamp();
    expect(s).not.toBeNull();
    return s;
  };
  const first = await stamp(a);
  seen.add(first);
  const data = await a.changeStamp();
  // A record write (the one-statement path and a transaction) moves the data stamp, not the key stamp.
  await insertRecord(a.db, brands, { name: 'Not a key' });
  await insertRecord(a.db, brands, { id: 'with-id', name: 'Checked first' });
  expect(await a.changeStamp()).not.toBe(data);
  expect(await stamp(a)).toBe(first);
  expect(await stamp(b)).toBe(first);
  // A key created through one connection moves it for both; so does its revocation through the other.
  const key = await write(a.db, (ctx) => createApiKey(ctx, { name: 'k', role: 'admin' }));
  const created = await stamp(b);
  expect(seen.has(created)).toBe(false);
  seen.add(created);
  expect(await stamp(a)).toBe(created);
  await write(b.db, (ctx) => revokeApiKey(ctx, key.id));
  const revoked = await stamp(a);
  expect(seen.has(revoked)).toBe(false);
  seen.add(revoked);
  // A key write rolled back leaves no version that a later key change would repeat, though SQLite's
  // stamp, read on the connection that writes, sees the version while the write is under way.
  await expect(
    write(a.db, async (ctx) => {
      await createApiKey(ctx, { name: 'undone', role: 'admin' });
      seen.add(await a.keyStamp());
      throw new Error('undo');
    }),
  ).rejects.toThrow('undo');
  expect(await stamp(a)).toBe(revoked);
  await write(a.db, (ctx) => createApiKey(ctx, { name: 'k2', role: 'admin' }));
  expect(seen.has(await stamp(b))).toBe(false);
}

describe('key stamp', () => {
  it('SQLite: moves with every key change, by this connection or another, and not with record writes', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-key-stamp-'));
    const a = await openDatabase(dir);
    const b = await openDatabase(dir);
    try {
      await movesWithKeysOnly(a, b);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: the same', async () => {
    const cluster = new PgCluster();
    let a: OpenDatabase | undefined;
    let b: OpenDatabase | undefined;
    try {
      await cluster.start();
      a = await openDatabaseTarget({ kind: 'postgres', connectionString: cluster.url });
      b = await openDatabaseTarget({ kind: 'postgres', connectionString: cluster.url });
      await movesWithKeysOnly(a, b);
    } finally {
      await a?.close();
      await b?.close();
      cluster.stop();
    }
  }, 60_000);
});
