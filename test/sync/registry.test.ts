// The sync registry (storage/sync-registry.ts) is the one declaration of a synced record: the outbox names,
// the master-data write routes a synced laptop refuses, and the import's entities all come from it.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TestServer } from '../api/harness.js';
import { entityKey } from '../../main/server/domain/import-files.js';
import { IMPORT_ENTITIES } from '../../main/server/domain/import.js';
import { openDatabase, type OpenDatabase } from '../../main/server/storage/database.js';
import type { WriteContext } from '../../main/server/storage/transaction.js';
import { syncColumns } from '../../main/server/sync/columns.js';
import { MASTER_WRITES } from '../../main/server/sync/plugin.js';
import { SYNC_ENTITIES, syncEntity } from '../../main/server/storage/sync-registry.js';

let dataDir: string | undefined;
let database: OpenDatabase | undefined;
afterEach(async () => {
  await database?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  database = undefined;
  dataDir = undefined;
});

// Never called: `npm run typecheck` (tsconfig.test.json) checks that the outbox takes only the
// registry's names.
export function outboxNamesAreChecked(ctx: WriteContext): void {
  ctx.changed('scene', 'id');
  // @ts-expect-error a table's name is not an entity's
  ctx.changed('scenes', 'id');
  // @ts-expect-error nor is a misspelt one
  ctx.changed('sku_imgae', 'id');
}

describe('sync registry', () => {
  it('every entity has its table, made by the migrations', async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-registry-'));
    database = await openDatabase(dataDir);
    const columns = await syncColumns(database.db);
    for (const e of SYNC_ENTITIES) {
      expect(columns.get(e.table), e.table).toContain('id');
      for (const c of [...('supervisorColumns' in e ? e.supervisorColumns : []), ...('localColumns' in e ? e.localColumns : []), ...('visit' in e ? [e.visit] : [])]) {
        expect(columns.get(e.table), `${e.table}.${c}`).toContain(c);
      }
    }
    expect(new Set(SYNC_ENTITIES.map((e) => e.entity)).size).toBe(SYNC_ENTITIES.length);
    expect(syncEntity('nothing')).toBeUndefined();
  });

  it('the import takes the master data in the registry order, each with its own resource', () => {
    expect(IMPORT_ENTITIES.map((e) => [e.key, e.naturalKey])).toEqual([
      ['brands', undefined],
      ['categories', undefined],
      ['manufacturers', undefined],
      ['skus', 'cid'],
      ['displays', undefined],
      ['planograms', undefined],
      ['planogram_records', undefined],
      ['mhls', undefined],
      ['mhl_records', undefined],
      ['tasks', 'name'],
      ['kpis', 'cid'],
      ['price_list', undefined],
    ]);
    for (const e of IMPORT_ENTITIES) {
      expect(e.def.table).toBe(e.key);
      expect(syncEntity(e.def.entity)?.table).toBe(e.key);
    }
    const names: Record<string, string> = {
      brand: 'brands', category: 'categories', manufacturer: 'manufacturers', sku: 'skus', display: 'displays',
      planogram: 'planograms', planogram_record: 'planogram_records', mhl: 'mhls', musthavelist: 'mhls',
      mhl_record: 'mhl_records', task: 'tasks', kpi: 'kpis', 'Planogram-Records': 'planogram_records', ' KPIS ': 'kpis',
      price: 'price_list', prices: 'price_list', price_list: 'price_list',
    };
    for (const [name, key] of Object.entries(names)) expect(entityKey(name), name).toBe(key);
    for (const name of ['sku_image', 'visit', 'constructor', 'toString', '']) expect(() => entityKey(name), name).toThrow(/Unknown entity/);
  });

  it('a synced laptop refuses writes to the master-data routes the registry names', () => {
    // The hand-written list this replaced decides every address alike, but for the MHL record's
    // route, which it spelt `mhl_records` (the route is /api/v1.5/mhl_record/, so a synced laptop let
    // its writes through).
    const before =
      /^\/api\/(?:v1\.5|data\/v1\.[015])\/(?:brands|categories|manufacturers|sku|displays|planograms|planogram_records|mhl|mhl_records|tasks|kpi)(?:\/|\?|$)|^\/api\/app\/v1\/import(?:\/|\?|$)/;
    const mhlRecord = /\/mhl_records?(?:[/?]|$)/;
    const prefixes = ['/api/v1.5/', '/api/data/v1.0/', '/api/data/v1.1/', '/api/data/v1.5/', '/api/data/v1.2/', '/api/v1.4/', '/api/app/v1/', '/api/'];
    const segments = [
      'brands', 'brand', 'categories', 'manufacturers', 'sku', 'skus', 'sku_images', 'displays', 'planograms', 'planogram_records',
      'mhl', 'mhls', 'mhl_record', 'mhl_records', 'tasks', 'kpi', 'kpis', 'visits', 'uploads', 'recognize', 'import', 'keys', 'sync',
    ];
    const suffixes = ['', '/', '/x/', '?a=1', 'x', '_x/', '/x/images/', '/x/images/y/'];
    const urls = prefixes.flatMap((p) => segments.flatMap((s) => suffixes.map((x) => `${p}${s}${x}`)));
    urls.push('/api/app/v1/importx', '/x/api/v1.5/brands/', '/api/v1.5/brands/x?y=/api/app/v1/import');
    const differ = urls.filter((u) => MASTER_WRITES.test(u) !== before.test(u));
    expect(differ.filter((u) => !mhlRecord.test(u))).toEqual([]);
    expect(differ).toContain('/api/v1.5/mhl_record/x/');
    expect(MASTER_WRITES.test('/api/v1.5/mhl_record/')).toBe(true);
    // The price list's API is the app's own: refused there too, and only there.
    expect(['/api/app/v1/prices/', '/api/app/v1/prices/x/', '/api/app/v1/prices?a=1'].every((u) => MASTER_WRITES.test(u))).toBe(true);
    expect(['/api/app/v1/pricesx/', '/api/v1.5/prices/', '/api/app/v1/photo_quality/'].some((u) => MASTER_WRITES.test(u))).toBe(false);
    expect(urls.filter((u) => MASTER_WRITES.test(u)).length).toBeGreaterThan(100);
  });

  it('of the documented write routes, it refuses those of master data and no other', async () => {
    const t = await new TestServer().start();
    try {
      const doc = (await t.get('/api/schema/')).body as { paths: Record<string, Record<string, unknown>> };
      const writes = Object.entries(doc.paths).flatMap(([p, ops]) =>
        Object.keys(ops).filter((m) => ['post', 'put', 'patch', 'delete'].includes(m)).map(() => p.replaceAll(/\{[^}]+\}/g, 'x')),
      );
      const api = writes.filter((p) => /^\/api\/(v1\.5|data)\//.test(p));
      const allowed = new Set(api.filter((p) => !MASTER_WRITES.test(p)).map((p) => /^\/api\/(?:v1\.5|data\/v1\.\d)\/[^/]+/.exec(p)![0]));
      // Records laptops create: visits and what recognition, review and the Data API's acks write.
      expect([...allowed].sort()).toEqual([
        '/api/data/v1.0/visits', '/api/v1.5/oos_reason', '/api/v1.5/recognition_error', '/api/v1.5/recognize', '/api/v1.5/reports',
        '/api/v1.5/scenes', '/api/v1.5/uploads', '/api/v1.5/uploads_by_url', '/api/v1.5/visits',
      ]);
      expect(writes.filter((p) => p.startsWith('/api/app/') && MASTER_WRITES.test(p))).toEqual(['/api/app/v1/import/', '/api/app/v1/prices/', '/api/app/v1/prices/x/', '/api/app/v1/prices/x/', '/api/app/v1/prices/x/']);
      // Every route a master-data entity names exists (a misspelt one would refuse nothing).
      const paths = Object.keys(doc.paths);
      for (const e of SYNC_ENTITIES) {
        for (const r of 'routes' in e ? e.routes : []) expect(paths.some((p) => /^\/api\/(?:v1\.5|data\/v1\.\d)\/([^/]+)/.exec(p)?.[1] === r), r).toBe(true);
        for (const r of 'appRoutes' in e ? e.appRoutes : []) expect(paths.some((p) => /^\/api\/app\/v1\/([^/]+)/.exec(p)?.[1] === r), r).toBe(true);
      }
    } finally {
      await t.close();
    }
  });
});
