// SQLite's write lock held by another process (the CLI importing, another `serve --workers` process)
// for longer than the busy timeout: a write answers 503 with Retry-After, in DRF's shape, where it
// answered 500 (storage/database-unavailable.ts); nothing of it is kept, and it does once the lock is let
// go. A real serve process; the lock is taken on the same file by this test's own connection.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../main/server/storage/database.js';
import { ServeProcesses, listeningUrl } from '../serve-listening.js';

const KEY = 'database-busy-key-0123456789abcdefghij';
const processes = new ServeProcesses(KEY, {});
afterAll(() => processes.closeAll());

it('answers 503 while another process holds the write lock past the busy timeout, and writes once it is let go', async () => {
  const child = processes.start([]);
  const url = await listeningUrl(child);
  const dataDir = child.spawnargs[child.spawnargs.indexOf('--data-dir') + 1];
  const headers = { authorization: `Token ${KEY}`, 'content-type': 'application/json' };
  const brand = (id: string) => fetch(`${url}/api/v1.5/brands/`, { method: 'POST', headers, body: JSON.stringify({ id, name: id }) });
  expect((await brand('before')).status).toBe(201);

  const other = new Database(path.join(dataDir, DATABASE_FILE));
  try {
    other.exec('BEGIN IMMEDIATE');
    const r = await brand('while-locked');
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('5');
    expect(await r.json()).toEqual({ detail: 'The database is unavailable for now: try again later.' });
    other.exec('ROLLBACK');
  } finally {
    other.close();
  }
  expect((await brand('after')).status).toBe(201);
  const list = await (await fetch(`${url}/api/v1.5/brands/?ordering=id`, { headers })).json();
  expect(list.results.map((b: { id: string }) => b.id)).toEqual(['after', 'before']);
}, 60_000);
