// The same server on PostgreSQL: a throw-away cluster (initdb + pg_ctl, unix socket only), the schema
// migrated by the same migrations, and the API called over HTTP. Proves the SQL layer is portable.
// Runs where PostgreSQL's server binaries are installed (they are on the project's machines).
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../main/server/app.js';
import { createApiKey, verifyApiKey } from '../../main/server/domain/api-keys.js';
import { openDatabaseTarget, type OpenDatabase } from '../../main/server/storage/database.js';
import { write } from '../../main/server/storage/transaction.js';
import { sql } from 'kysely';
import { PG_BIN } from '../../scripts/pg-cluster.mjs';

// PostgreSQL's server binaries are part of the test command's setup: without them this fails, never skips.
const BIN = PG_BIN;
const isRoot = process.getuid?.() === 0;

describe('on PostgreSQL', () => {
  it('has PostgreSQL server binaries to run (apt-get install postgresql)', () => {
    expect(BIN).toBeDefined();
  });

  let dir: string;
  let database: OpenDatabase;
  let app: FastifyInstance;
  let url: string;
  let token: string;
  const pg = (tool: string, args: string[]) =>
    isRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', path.join(BIN!, tool), ...args], { stdio: 'pipe' })
      : execFileSync(path.join(BIN!, tool), args, { stdio: 'pipe' });

  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(url + p, {
      method,
      headers: { authorization: `Token ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-pg-'));
    if (isRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
    pg('initdb', ['-D', path.join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync']);
    pg('pg_ctl', ['-D', path.join(dir, 'data'), '-w', '-l', path.join(dir, 'log'), '-o', `-c listen_addresses='' -k ${dir} -p 5439 -F`, 'start']);
    database = await openDatabaseTarget({ kind: 'postgres', connectionString: `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(dir)}&port=5439` });
    token = (await write(database.db, (ctx) => createApiKey(ctx, { name: 'pg test', role: 'admin' }))).key;
    app = await buildApp({ db: database.db, config: { host: '127.0.0.1', port: 0, dataDir: dir, webRoot: null, logger: false } });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await database?.close();
    if (dir) {
      try {
        pg('pg_ctl', ['-D', path.join(dir, 'data'), '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it('imports the sample catalog and serves both APIs', async () => {
    const sample = JSON.parse(readFileSync(new URL('../../samples/catalog.json', import.meta.url), 'utf8'));
    const imported = await call('POST', '/api/app/v1/import/', sample);
    expect(imported.status).toBe(200);
    expect(imported.body.created.skus).toBe(8);
    const page = await call('GET', '/api/v1.5/sku/?limit=3&offset=3');
    expect(page.body.count).toBe(8);
    expect(page.body.results).toHaveLength(3);
    expect(page.body.next).toBe(`${url}/api/v1.5/sku/?limit=3&offset=6`);
    expect((await call('GET', '/api/v1.5/sku/sku-cocacola-can/')).body).toMatchObject({ size_x_mm: 66, attributes: { package: 'can', volume_ml: '330' } });
    expect((await call('GET', '/api/v1.5/displays/display-cooler-1/')).body).toMatchObject({ planogram: 'planogram-cooler-1', musthavelist: 'mhl-cooler-1' });
    const skus = await call('GET', '/api/data/v1.0/sku/');
    const can = skus.body.results.find((s: { cid: string }) => s.cid === 'CC-CAN-330');
    expect((await call('GET', `/api/data/v1.0/brands/${can.brand_id}/`)).body.name).toBe('Coca-Cola');
    expect((await call('GET', '/api/data/v1.0/tasks/')).body.results[0].is_required).toBe(true);
    expect((await call('GET', '/api/data/v1.0/md_import_status/')).body.last_import_datetime).toMatch(/^\d{4}-/);
    expect((await call('GET', '/api/app/v1/info/')).body.database).toBe('postgresql');
  });

  it('writes a new record and its outbox row in one transaction (one statement: storage/transaction.ts insertWrite); answers writes with what was stored', async () => {
    const created = await call('POST', '/api/v1.5/brands/', { name: 'One statement' });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const { rows } = await sql<{ xmin: string; name: string }>`SELECT xmin::text AS xmin, name FROM brands WHERE id = ${id}`.execute(database.db);
    expect(rows).toEqual([{ xmin: expect.any(String), name: 'One statement' }]);
    const changes = await database.db.selectFrom('outbox').select(['entity', 'op', 'device_id', 'txid']).where('record_id', '=', id).execute();
    // The outbox row carries the transaction id that wrote the record (sync/central/pull.ts pages by it).
    expect(changes).toEqual([{ entity: 'brand', op: 'upsert', device_id: null, txid: rows[0].xmin }]);
    expect((await call('GET', `/api/v1.5/brands/${id}/`)).body).toEqual({ id, name: 'One statement' });
    // The record a POST answers is the one stored: inserted alone (no reference) or after its
    // reference is checked, in a transaction; both answer what the insert returned.
    for (const body of [{ name: 'Alone', size_x_mm: 5, attributes: { a: 'b' } }, { name: 'Checked', brand: id, attributes: { c: 'd' } }]) {
      const sku = await call('POST', '/api/v1.5/sku/', body);
      expect(sku.status).toBe(201);
      expect(sku.body).toMatchObject(body);
      expect((await call('GET', `/api/v1.5/sku/${sku.body.id}/`)).body).toEqual(sku.body);
      // An update answers what its UPDATE returned: the stored record too.
      const patched = await call('PATCH', `/api/v1.5/sku/${sku.body.id}/`, { attributes: { e: 'f' }, size_y_mm: 7 });
      expect(patched.body).toEqual({ ...sku.body, attributes: { e: 'f' }, size_y_mm: 7 });
      expect((await call('GET', `/api/v1.5/sku/${sku.body.id}/`)).body).toEqual(patched.body);
    }
  });

  it('runs the queries of every request as named statements, prepared once per connection (storage/dialect.ts)', async () => {
    const prepared = await database.db.connection().execute(async (conn) => {
      for (let i = 0; i < 3; i++) expect(await verifyApiKey(conn, token)).toMatchObject({ role: 'admin' });
      // Unnamed statements (every other query) are not listed.
      const { rows } = await sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements`.execute(conn);
      return rows;
    });
    expect(prepared.filter((p) => p.statement.includes('"api_keys"'))).toEqual([{ name: expect.stringMatching(/^sa_prepared_\d+$/), statement: expect.stringContaining('"hash" = $1') }]);
  });

  it('renames with cascading references, rejects bad rows atomically, tracks visits', async () => {
    expect((await call('PATCH', '/api/v1.5/brands/brand-sprite/', { id: 'brand-sprite-2' })).status).toBe(200);
    expect((await call('GET', '/api/v1.5/sku/sku-sprite-pet/')).body.brand).toBe('brand-sprite-2');
    expect((await call('POST', '/api/v1.5/brands/', { id: 'brand-fanta', name: 'x' })).body).toEqual({ id: ['brand with this id already exists.'] });
    const failed = await call('POST', '/api/app/v1/import/', { brands: [{ id: 'pg-new', name: 'New' }], skus: [{ name: 'x', brand: 'nope' }] });
    expect(failed.status).toBe(400);
    expect((await call('GET', '/api/v1.5/brands/pg-new/')).status).toBe(404);
    await call('POST', '/api/v1.5/visits/', { id: 'pg-visit', agent: 'a', started_date: '2026-11-20T10:00:00Z' });
    const visits = await call('GET', '/api/data/v1.0/visits/?datetime_gte=2026-11-19T00:00:00Z&agent=a');
    expect(visits.body.results.map((v: { cid: string }) => v.cid)).toEqual(['pg-visit']);
    const id = visits.body.results[0].id;
    expect((await call('POST', `/api/data/v1.0/visits/${id}/ack/`)).status).toBe(200);
    expect((await call('GET', '/api/data/v1.0/visits/?is_new=false')).body.count).toBe(1);
    const kpi = (await call('GET', '/api/data/v1.0/kpi/')).body.results[0].id;
    const cat = (await call('GET', '/api/data/v1.0/categories/')).body.results[0].id;
    expect((await call('POST', `/api/data/v1.0/visits/${id}/kpivalue/`, { kpi, category: cat, value: 12.5 })).status).toBe(200);
    expect((await call('GET', `/api/data/v1.0/visits/${id}/`)).body).toMatchObject({ is_new: true, kpi_values: [{ kpi, category: cat, value: 12.5 }] });
    expect((await call('DELETE', '/api/v1.5/planograms/planogram-cooler-1/')).status).toBe(200);
    expect((await call('GET', '/api/v1.5/planogram_records/')).body.count).toBe(0);
  });

  it('records agents and previous reports from /recognize', async () => {
    const form = new FormData();
    const jpeg = await sharp({ create: { width: 96, height: 64, channels: 3, background: '#468' } }).jpeg().toBuffer();
    form.append('datafile', new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'p.jpg');
    const up = await (await fetch(`${url}/api/v1.5/uploads/`, { method: 'POST', headers: { authorization: `Token ${token}` }, body: form })).json();
    const body = { images: [up.id], display: 'display-cooler-1', report_types: ['FACING_COUNT'] };
    const first = await call('POST', '/api/v1.5/recognize/', { ...body, metadata: { agent_id: 'pg-agent', agent_name: 'Ann' } });
    expect(first.status).toBe(201);
    const second = await call('POST', '/api/v1.5/recognize/', { ...body, metadata: { agent_id: 'pg-agent', agent_name: 'Anna' } });
    expect((await call('GET', '/api/app/v1/agents/')).body).toMatchObject({ count: 1, results: [{ id: 'pg-agent', name: 'Anna' }] });
    expect((await call('GET', '/api/app/v1/agents/ghost/')).status).toBe(404);
    const reportOf = async (r: { body: { reports: { FACING_COUNT: string } } }) => (await call('GET', `/api/v1.5/reports/${r.body.reports.FACING_COUNT}/`)).body;
    expect((await reportOf(first)).previous_report).toBeNull();
    expect((await reportOf(second)).previous_report).toBe(first.body.reports.FACING_COUNT);
    const visit = (await call('GET', `/api/data/v1.0/visits/?cid=${second.body.visit}`)).body.results[0];
    expect((await call('GET', `/api/data/v1.0/visits/${visit.id}/`)).body.scenes).toEqual([expect.objectContaining({ id: second.body.scene, agent_id: 'pg-agent' })]);
  });
});
