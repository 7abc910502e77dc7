// The WAL's sync on a thread of its own (storage/wal-sync-thread.ts): a sync that ends within the
// event loop's wait answers in the same turn; one that does not ends later; a failed one is reported.
// The order of commit, sync and answer through the server is test/storage/durability.test.ts's.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { WalSync } from '../../main/server/storage/wal-sync.js';
import { WalSyncThread } from '../../main/server/storage/wal-sync-thread.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A WAL database with one committed row, as the server's connection is set up (synchronous = NORMAL). */
function committedDatabase() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wal-sync-thread-'));
  const file = path.join(dir, 'db.sqlite');
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.exec('CREATE TABLE t (x)');
  sqlite.prepare('INSERT INTO t VALUES (1)').run();
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return { sqlite, wal: `${file}-wal` };
}

/** Lets every callback already queued as a microtask run, and no more: no turn of the event loop. */
async function microtasks() {
  for (let i = 0; i < 5; i++) await null;
}

it('answers a commit whose sync ends within the wait in the same turn, without waiting for the event loop', async () => {
  const { sqlite, wal } = committedDatabase();
  // A wait long enough that any disk here syncs within it.
  const sync = new WalSync(sqlite, wal, undefined, 5000);
  cleanups.push(async () => {
    await sync.close();
    sqlite.close();
  });
  sync.committed();
  let synced = false;
  void sync.pending()!.then(() => (synced = true));
  await microtasks();
  // Synced on libuv's thread pool, the end is seen at the loop's next poll at the soonest.
  expect(synced).toBe(true);
  expect(sync.pending()).toBeNull();
});

it('leaves a sync that outlasts the wait to end in the background, and answers once it has', async () => {
  const { sqlite, wal } = committedDatabase();
  const thread = new WalSyncThread(wal);
  cleanups.push(() => thread.close());
  // No wait at all: the sync is not done when the call returns.
  const first = thread.sync(0);
  expect(first).toBeInstanceOf(Promise);
  await first;
  // Rounds follow one another: the next is waited for, and ends too.
  await (thread.sync(0) ?? Promise.resolve());
  expect(thread.fd).not.toBeNull();
  sqlite.close();
});

it('reports a sync that failed, waited for or not, and is usable no more once closed', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wal-sync-thread-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const thread = new WalSyncThread(path.join(dir, 'missing', 'db.sqlite-wal'));
  expect(() => thread.sync(5000)).toThrow(/fdatasync failed/);
  await expect(Promise.resolve().then(() => thread.sync(0))).rejects.toThrow(/fdatasync failed/);
  expect(thread.usable).toBe(true);
  await thread.close();
  expect(thread.usable).toBe(false);
  expect(() => thread.sync(0)).toThrow(/closed/);
});
