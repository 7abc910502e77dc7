// Table stamps (storage/change-stamp.ts): the record cache keeps a resource that shows only its own
// table's rows under that table's stamp, and its answers wait only for the WAL sync of a change to
// that table (storage/wal-sync.ts, pendingFor). So a table's stamp must move with every change to its
// rows, by any path (foreign-key actions included) and by any connection, and a cached answer must
// never be served after a write it would not show; a write to another table must leave it alone.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it, vi } from 'vitest';
import { buildApp } from '../../main/server/app.js';
import { createApiKey } from '../../main/server/domain/api-keys.js';
import { brands } from '../../main/server/domain/catalogs.js';
import { createRecord, insertRecord } from '../../main/server/domain/resource.js';
import { DATABASE_FILE, openDatabase, openDatabaseTarget, type OpenDatabase } from '../../main/server/storage/database.js';
import { write } from '../../main/server/storage/transaction.js';
import { durable, durableTables } from '../../main/server/storage/wal-sync.js';
import { holdSyncs } from './held-syncs.js';
import { PgCluster } from '../../scripts/pg-cluster.mjs';

const dirs: string[] = [];
const opened: OpenDatabase[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const d of opened.splice(0)) await d.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function fresh(): Promise<{ dir: string; database: OpenDatabase }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-table-stamp-'));
  dirs.push(dir);
  const database = await openDatabase(dir);
  opened.push(database);
  return { dir, database };
}

const now = new Date().toISOString();

it('SQLite: a table stamp moves with every change to its rows (foreign-key cascades, other connections) and not with other tables', async () => {
  const { dir, database: a } = await fresh();
  const b = await openDatabase(dir);
  opened.push(b);
  const skus = () => a.tableStamp('skus');
  const s0 = await skus();
  expect(s0).not.toBeNull();
  // A brand and a category: not the SKUs.
  await write(a.db, (ctx) => createRecord(ctx, brands, { id: 'b1', name: 'One' }));
  await write(a.db, async (ctx) => void (await ctx.trx.insertInto('categories').values({ id: 'c1', name: 'C', created_at: now, updated_at: now } as never).execute()));
  expect(await skus()).toBe(s0);
  const brands0 = await a.tableStamp('brands');
  // An SKU written by this connection.
  await write(a.db, async (ctx) => void (await ctx.trx.insertInto('skus').values({ id: 's1', name: 'S', brand_id: 'b1', created_at: now, updated_at: now } as never).execute()));
  const s1 = await skus();
  expect(s1).not.toBe(s0);
  expect(await a.tableStamp('brands')).toBe(brands0);
  // A brand renamed: ON UPDATE CASCADE rewrites the SKU's brand_id, so the SKUs' stamp moves too.
  await write(a.db, async (ctx) => void (await ctx.trx.updateTable('brands').set({ id: 'b2' }).where('id', '=', 'b1').execute()));
  const s2 = await skus();
  expect(s2).not.toBe(s1);
  // A write undone leaves the stamp as it was (its rows are as they were).
  await expect(
    write(a.db, async (ctx) => {
      await ctx.trx.updateTable('skus').set({ name: 'undone' }).where('id', '=', 's1').execute();
      throw new Error('undo');
    }),
  ).rejects.toThrow('undo');
  expect(await skus()).toBe(s2);
  // Another connection (another process, the CLI): the tables migration 0027 follows in the database
  // file (the SKUs, the categories) move with its commits to them only; a table followed by TEMP
  // triggers (the KPIs) moves with its commit to any table, which it cannot tell apart.
  const kpis0 = await a.tableStamp('kpis');
  const other = new Database(path.join(dir, DATABASE_FILE));
  try {
    other.prepare("INSERT INTO categories (id, name, created_at, updated_at) VALUES ('c2', 'C2', 'now', 'now')").run();
    expect(await skus()).toBe(s2);
    expect(await a.tableStamp('kpis')).not.toBe(kpis0);
    other.prepare("UPDATE skus SET name = 'by the CLI' WHERE id = 's1'").run();
  } finally {
    other.close();
  }
  const s3 = await skus();
  expect(s3).not.toBe(s2);
  // And a commit to the SKUs through the second server connection moves the first's.
  await write(b.db, async (ctx) => void (await ctx.trx.updateTable('skus').set({ name: 'by b' }).where('id', '=', 's1').execute()));
  expect(await skus()).not.toBe(s3);
  // A table the stamps do not follow has the whole database's stamp.
  expect(await a.tableStamp('no_such_table')).toBe(await a.changeStamp());
});

it('PostgreSQL: a followed table\'s stamp moves with every commit to its rows (cascades, either connection), not with other tables; others have the snapshot', async () => {
  const cluster = new PgCluster();
  let a: OpenDatabase | undefined;
  let b: OpenDatabase | undefined;
  try {
    await cluster.start();
    a = await openDatabaseTarget({ kind: 'postgres', connectionString: cluster.url });
    b = await openDatabaseTarget({ kind: 'postgres', connectionString: cluster.url });
    const skus = () => b!.tableStamp('skus');
    const s0 = await skus();
    expect(s0).toMatch(/^skus:/);
    const brands0 = await b.tableStamp('brands');
    await write(a.db, (ctx) => createRecord(ctx, brands, { id: 'b1', name: 'One' }));
    expect(await skus()).toBe(s0);
    // The one-statement insert of a POST (the row and its outbox row in one CTE) moves it too.
    const brands1 = await b.tableStamp('brands');
    expect(brands1).not.toBe(brands0);
    await insertRecord(a.db, brands, { name: 'By the CTE' });
    expect(await b.tableStamp('brands')).not.toBe(brands1);
    expect(await skus()).toBe(s0);
    await write(a.db, async (ctx) => void (await ctx.trx.insertInto('skus').values({ id: 's1', name: 'S', brand_id: 'b1', created_at: now, updated_at: now } as never).execute()));
    const s1 = await skus();
    expect(s1).not.toBe(s0);
    // ON UPDATE CASCADE rewrites the SKU's brand_id: the SKUs' stamp moves.
    await write(b.db, async (ctx) => void (await ctx.trx.updateTable('brands').set({ id: 'b2' }).where('id', '=', 'b1').execute()));
    const s2 = await skus();
    expect(s2).not.toBe(s1);
    expect((await a.db.selectFrom('skus').select('brand_id').executeTakeFirstOrThrow()).brand_id).toBe('b2');
    await expect(
      write(a.db, async (ctx) => {
        await ctx.trx.updateTable('skus').set({ name: 'undone' }).execute();
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await skus()).toBe(s2);
    // The stamps read together agree with those read alone.
    const set = await a.stampSet();
    expect(await set.table('skus')).toBe(s2);
    expect(await set.table('visits')).toBe(await set.data());
    expect(await a.tableStamp('visits')).not.toMatch(/^visits:/);
  } finally {
    await a?.close();
    await b?.close();
    cluster.stop();
  }
}, 60_000);

it('an answer showing only the SKUs does not wait for the sync of a brand commit; one showing the brands does', async () => {
  const { dir, database } = await fresh();
  const { db } = database;
  const app = await buildApp({
    db,
    config: { host: '127.0.0.1', port: 0, dataDir: dir, webRoot: null, logger: false },
    changeStamp: database.changeStamp,
    keyStamp: database.keyStamp,
    tableStamp: database.tableStamp,
  });
  let syncs: Awaited<ReturnType<typeof holdSyncs>> | undefined;
  try {
    await app.ready();
    await app.recognitionWorker.stop(); // its polls write, and their syncs would be held too
    const token = (await write(db, (ctx) => createApiKey(ctx, { name: 'table-stamp', role: 'admin' }))).key;
    const headers = { authorization: `Token ${token}` };
    await write(db, async (ctx) => void (await ctx.trx.insertInto('skus').values({ id: 's1', name: 'S', created_at: now, updated_at: now } as never).execute()));
    // Everything so far on disk, and the stamps' versions recorded by a finished sync.
    await durable(db);
    // Another process's commit: to another table, the SKUs' answers need no sync; to the SKUs, they do.
    const other = new Database(path.join(dir, DATABASE_FILE));
    try {
      other.prepare("INSERT INTO categories (id, name, created_at, updated_at) VALUES ('c-other', 'C', 'now', 'now')").run();
      expect(durable(db)).not.toBeNull();
      expect(durableTables(db, ['skus', 'api_keys'])).toBeNull();
      other.prepare("UPDATE skus SET name = 'S' WHERE id = 's1'").run();
      expect(durableTables(db, ['skus', 'api_keys'])).not.toBeNull();
    } finally {
      other.close();
    }
    await durable(db);
    expect((await app.inject({ method: 'GET', url: '/api/v1.5/sku/', headers })).json().count).toBe(1);
    syncs = await holdSyncs(dir);
    const written = write(db, (ctx) => createRecord(ctx, brands, { id: 'held', name: 'Held' }));
    await syncs.started(1);
    expect(durable(db)).not.toBeNull();
    expect(durableTables(db, ['brands'])).not.toBeNull();
    expect(durableTables(db, ['skus', 'api_keys'])).toBeNull();
    // The SKU page and record are answered while the brand's sync is held ...
    const page = await app.inject({ method: 'GET', url: '/api/v1.5/sku/', headers });
    expect(page.json().count).toBe(1);
    expect((await app.inject({ method: 'GET', url: '/api/v1.5/sku/s1/', headers })).statusCode).toBe(200);
    // ... the brand list, which may show the held brand, is not.
    let brandsAnswered = false;
    const brandList = app.inject({ method: 'GET', url: '/api/v1.5/brands/', headers }).then((r) => ((brandsAnswered = true), r));
    await new Promise((r) => setTimeout(r, 100));
    expect(brandsAnswered).toBe(false);
    syncs.release();
    expect((await brandList).json().results.map((r: { id: string }) => r.id)).toContain('held');
    await written;
    // A commit to the SKUs: now the SKU page waits for its sync.
    const skuWrite = write(db, async (ctx) => void (await ctx.trx.updateTable('skus').set({ name: 'T' }).where('id', '=', 's1').execute()));
    await syncs.started(2);
    expect(durableTables(db, ['skus', 'api_keys'])).not.toBeNull();
    let skuAnswered = false;
    const skuPage = app.inject({ method: 'GET', url: '/api/v1.5/sku/', headers }).then((r) => ((skuAnswered = true), r));
    await new Promise((r) => setTimeout(r, 100));
    expect(skuAnswered).toBe(false);
    syncs.release();
    expect((await skuPage).json().results[0].name).toBe('T');
    await skuWrite;
  } finally {
    syncs?.stop();
    await app.close();
  }
});

it('cached SKU pages and records survive brand writes and show every SKU write, a cascaded brand rename included', async () => {
  const { dir, database } = await fresh();
  const { db } = database;
  const app = await buildApp({
    db,
    config: { host: '127.0.0.1', port: 0, dataDir: dir, webRoot: null, logger: false },
    changeStamp: database.changeStamp,
    keyStamp: database.keyStamp,
    tableStamp: database.tableStamp,
  });
  try {
    await app.ready();
    const token = (await write(db, (ctx) => createApiKey(ctx, { name: 'table-stamp', role: 'admin' }))).key;
    const headers = { authorization: `Token ${token}` };
    const get = async (url: string) => {
      const r = await app.inject({ method: 'GET', url, headers });
      expect(r.statusCode).toBe(200);
      return r.json();
    };
    const send = async (method: 'POST' | 'PATCH' | 'PUT', url: string, payload: object) => {
      const r = await app.inject({ method, url, headers, payload });
      expect(r.statusCode).toBeLessThan(300);
    };
    await send('POST', '/api/v1.5/brands/', { id: 'b1', name: 'One' });
    for (let i = 0; i < 5; i++) await send('POST', '/api/v1.5/sku/', { id: `s${i}`, name: `S${i}`, brand: 'b1' });
    const page = await get('/api/v1.5/sku/?limit=2&offset=3');
    expect(page.results.map((r: { id: string }) => r.id)).toEqual(['s3', 's4']);
    const stamp = await database.tableStamp('skus');
    // A brand write leaves the SKU scope's stamp, hence what is kept of it.
    await send('POST', '/api/v1.5/brands/', { id: 'b2', name: 'Two' });
    expect(await database.tableStamp('skus')).toBe(stamp);
    expect(await get('/api/v1.5/sku/?limit=2&offset=3')).toEqual(page);
    // Every SKU write shows at once, in pages and records.
    await send('POST', '/api/v1.5/sku/', { id: 's5', name: 'S5', brand: 'b2' });
    expect((await get('/api/v1.5/sku/?limit=2&offset=3')).count).toBe(6);
    expect((await get('/api/v1.5/sku/?limit=10&offset=4')).results.map((r: { id: string }) => r.id)).toEqual(['s4', 's5']);
    expect((await get('/api/v1.5/sku/s4/')).name).toBe('S4');
    await send('PATCH', '/api/v1.5/sku/s4/', { name: 'Renamed' });
    expect((await get('/api/v1.5/sku/s4/')).name).toBe('Renamed');
    expect((await get('/api/v1.5/sku/?limit=2&offset=3')).results[1].name).toBe('Renamed');
    // A brand's new id is written into its SKUs by the database (ON UPDATE CASCADE): the SKUs show it.
    await send('PATCH', '/api/v1.5/brands/b1/', { id: 'b1-new' });
    expect((await get('/api/v1.5/sku/s4/')).brand).toBe('b1-new');
    expect((await get('/api/v1.5/sku/?limit=2&offset=3')).results.map((r: { brand: string }) => r.brand)).toEqual(['b1-new', 'b1-new']);
  } finally {
    await app.close();
  }
});
