// Records kept by their rows' versions (http/record-cache.ts, RowVersionCache): on PostgreSQL a list
// whose stamp is the whole snapshot (visits, which devices' pushes write) keeps its serialised records
// across commits by the row's xmin, so a page after another row's commit reads its rows' versions and
// only the changed rows; a record is never served after a change to its row.
import { expect, it } from 'vitest';
import { buildApp } from '../../main/server/app.js';
import { createApiKey } from '../../main/server/domain/api-keys.js';
import { createRowVersionCache } from '../../main/server/http/record-cache.js';
import { openDatabaseTarget, type OpenDatabase } from '../../main/server/storage/database.js';
import { write } from '../../main/server/storage/transaction.js';
import { PgCluster } from '../../scripts/pg-cluster.mjs';

it('answers kept records whose version is unchanged, reads and keeps the changed ones, leaves out the gone', async () => {
  const cache = createRowVersionCache(1024);
  const rows = new Map([[1, { name: 'one', version: '10' }], [2, { name: 'two', version: '11' }], [3, { name: 'three', version: '12' }]]);
  const fetched: number[][] = [];
  const asked: number[][] = [];
  const read = (ids: number[]) =>
    cache.read(
      'visits',
      ids,
      async (of) => (asked.push(of), new Map(of.filter((id) => rows.has(id)).map((id) => [id, rows.get(id)!.version]))),
      async (of) => (fetched.push(of), new Map(of.filter((id) => rows.has(id)).map((id) => [id, { row: { name: rows.get(id)!.name }, version: rows.get(id)!.version }]))),
      (row) => JSON.stringify(row),
    );
  expect(Object.fromEntries(await read([1, 2, 3]))).toEqual({ 1: '{"name":"one"}', 2: '{"name":"two"}', 3: '{"name":"three"}' });
  expect(fetched).toEqual([[1, 2, 3]]);
  // None kept yet: the rows read at once, no versions asked first.
  expect(asked).toEqual([]);
  // Unchanged: nothing read but the versions.
  await read([1, 2, 3]);
  expect(fetched).toHaveLength(1);
  // Row 2 changed, row 3 deleted.
  rows.set(2, { name: 'two, renamed', version: '20' });
  rows.delete(3);
  expect(Object.fromEntries(await read([1, 2, 3]))).toEqual({ 1: '{"name":"one"}', 2: '{"name":"two, renamed"}' });
  expect(fetched).toEqual([[1, 2, 3], [2]]);
  // Over its bound it drops the oldest and still answers: 20 characters keep one record of 16, the last.
  const small = createRowVersionCache(20);
  const smallFetched: number[][] = [];
  const readSmall = () =>
    small.read('t', [1, 2, 3], async (of) => new Map(of.map((id) => [id, 'v'])), async (of) => (smallFetched.push(of), new Map(of.map((id) => [id, { row: { n: `record ${id}` }, version: 'v' }]))), (row) => JSON.stringify(row));
  expect((await readSmall()).size).toBe(3);
  expect((await readSmall()).size).toBe(3);
  expect(smallFetched).toEqual([[1, 2, 3], [1, 2]]);
});

it('PostgreSQL: visit pages show every change to their rows, by this server or another connection, while other rows\' commits keep the rest', async () => {
  const cluster = new PgCluster();
  let database: OpenDatabase | undefined;
  let other: OpenDatabase | undefined;
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  try {
    await cluster.start();
    database = await openDatabaseTarget({ kind: 'postgres', connectionString: cluster.url });
    other = await openDatabaseTarget({ kind: 'postgres', connectionString: cluster.url });
    const d = database;
    app = await buildApp({
      db: d.db,
      readDb: d.readDb,
      config: { host: '127.0.0.1', port: 0, dataDir: cluster.dir, webRoot: null, logger: false },
      changeStamp: d.changeStamp,
      keyStamp: d.keyStamp,
      tableStamp: d.tableStamp,
      stampSet: d.stampSet,
    });
    await app.ready();
    const token = (await write(d.db, (ctx) => createApiKey(ctx, { name: 'row-versions', role: 'admin' }))).key;
    const headers = { authorization: `Token ${token}` };
    const get = async (url: string) => {
      const r = await app!.inject({ method: 'GET', url, headers });
      expect(r.statusCode).toBe(200);
      return r.json();
    };
    const send = async (method: 'POST' | 'PATCH', url: string, payload: object) => {
      const r = await app!.inject({ method, url, headers, payload });
      expect(r.statusCode).toBeLessThan(300);
    };
    for (let i = 0; i < 6; i++) await send('POST', '/api/v1.5/visits/', { id: `v${i}`, name: `Visit ${i}`, shop: 'shop-1' });
    const names = async () => (await get('/api/v1.5/visits/?limit=3&offset=1&ordering=id')).results.map((r: { name: string }) => r.name);
    expect(await names()).toEqual(['Visit 1', 'Visit 2', 'Visit 3']);
    // Another row's commit moves the visits' stamp; the page is the same.
    await send('POST', '/api/v1.5/visits/', { id: 'v9', name: 'Visit 9', shop: 'shop-1' });
    expect(await names()).toEqual(['Visit 1', 'Visit 2', 'Visit 3']);
    // A change through the API, and one by another connection (another central process), show at once.
    await send('PATCH', '/api/v1.5/visits/v2/', { name: 'Renamed here' });
    expect(await names()).toEqual(['Visit 1', 'Renamed here', 'Visit 3']);
    await other.db.updateTable('visits').set({ name: 'Renamed elsewhere' }).where('id', '=', 'v3').execute();
    expect(await names()).toEqual(['Visit 1', 'Renamed here', 'Renamed elsewhere']);
    // Changed twice in one transaction: the version its row shows now.
    await write(other.db, async (ctx) => {
      await ctx.trx.updateTable('visits').set({ name: 'first' }).where('id', '=', 'v1').execute();
      await ctx.trx.updateTable('visits').set({ name: 'second' }).where('id', '=', 'v1').execute();
    });
    expect(await names()).toEqual(['second', 'Renamed here', 'Renamed elsewhere']);
    await other.db.deleteFrom('visits').where('id', '=', 'v2').execute();
    expect(await names()).toEqual(['second', 'Renamed elsewhere', 'Visit 4']);
  } finally {
    await app?.close();
    await database?.close();
    await other?.close();
    cluster.stop();
  }
}, 60_000);
