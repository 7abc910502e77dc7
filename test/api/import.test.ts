// Master-data import: over HTTP (JSON, CSV, multipart) and from the CLI of the build; all or nothing
// with a report of the failed rows; upsert by id or natural key.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const samplePath = path.join(root, 'samples/catalog.json');
const sample = JSON.parse(readFileSync(samplePath, 'utf8'));
const IMPORT = '/api/app/v1/import/';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('import over HTTP', () => {
  it('loads the sample catalog, then a second run updates instead of duplicating', async () => {
    const first = await t.post(IMPORT, sample);
    expect(first.status).toBe(200);
    expect(first.body.created).toMatchObject({ brands: 5, skus: 8, planograms: 1, planogram_records: 7, mhls: 1, mhl_records: 3, tasks: 2, kpis: 3 });
    expect((await t.get('/api/v1.5/planogram_records/pr-cooler-1-0/')).body).toMatchObject({ planogram: 'planogram-cooler-1', sku: 'sku-cocacola-can', facing_x: 3 });
    expect((await t.get('/api/v1.5/displays/display-cooler-1/')).body).toEqual({
      id: 'display-cooler-1', name: 'Drinks cooler, aisle 1', planogram: 'planogram-cooler-1', musthavelist: 'mhl-cooler-1',
    });
    const second = await t.post(IMPORT, sample);
    expect(second.body.created.skus).toBe(0);
    expect(second.body.updated.skus).toBe(8);
    expect((await t.get('/api/v1.5/sku/')).body.count).toBe(8);
  });

  it('coerces numeric and boolean text in JSON rows as the API does for form bodies', async () => {
    const res = await t.post(IMPORT, { skus: [{ id: 'text-sku', name: 'Text', size_x_mm: '70.5' }], tasks: [{ id: 'text-task', name: 'T', is_required: 'true' }] });
    expect(res.status).toBe(200);
    expect((await t.get('/api/v1.5/sku/text-sku/')).body.size_x_mm).toBe(70.5);
  });

  it('matches SKUs without id by cid', async () => {
    const res = await t.post(IMPORT, { skus: [{ cid: 'CC-CAN-330', name: 'Coca-Cola can 330 ml' }] });
    expect(res.body.updated.skus).toBe(1);
    expect((await t.get('/api/v1.5/sku/sku-cocacola-can/')).body.name).toBe('Coca-Cola can 330 ml');
  });

  it('rejects the whole file with a report of every failed row, changing nothing', async () => {
    const before = t.snapshot();
    const res = await t.post(IMPORT, {
      brands: [{ id: 'new-brand', name: 'Fine' }, { id: 'bad', name: '' }],
      skus: [{ id: 'new-sku', name: 'Ok', brand: 'new-brand' }, { id: 'ghost', name: 'Ghost', brand: 'no-such-brand' }, { name: 7.5, size_x_mm: 'wide' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('Import failed: 3 invalid rows; nothing was imported.');
    expect(res.body.failures).toEqual([
      { entity: 'brands', index: 1, id: 'bad', errors: { name: ['This field may not be blank.'] } },
      { entity: 'skus', index: 1, id: 'ghost', errors: { brand: ['Invalid pk "no-such-brand" - object does not exist.'] } },
      { entity: 'skus', index: 2, id: null, errors: { name: ['Not a valid string.'], size_x_mm: ['A valid number is required.'] } },
    ]);
    expect(t.snapshot()).toEqual(before);
  });

  it('rejects unknown entities and non-objects', async () => {
    const res = await t.post(IMPORT, { skuz: [] });
    expect(res.status).toBe(400);
    expect(res.body.unknown_entities).toEqual(['skuz']);
    expect((await t.post(IMPORT, [1, 2])).status).toBe(400);
  });

  it('takes a CSV body with ?entity= and a multipart upload', async () => {
    const csv = 'id,name\ncsv-brand-1,CSV One\ncsv-brand-2,"CSV, Two"\n';
    const res = await t.call('POST', `${IMPORT}?entity=brands`, { raw: { body: csv, type: 'text/csv' } });
    expect(res.status).toBe(200);
    expect(res.body.created.brands).toBe(2);
    expect((await t.get('/api/v1.5/brands/csv-brand-2/')).body.name).toBe('CSV, Two');
    const fd = new FormData();
    fd.append('entity', 'sku');
    fd.append('file', new Blob(['id,name,brand,size_x_mm,attributes\ncsv-sku,CSV SKU,csv-brand-1,70,"{""a"":""b""}"\n'], { type: 'text/csv' }), 'skus.csv');
    const multi = await t.call('POST', IMPORT, { multipart: fd });
    expect(multi.status).toBe(200);
    expect((await t.get('/api/v1.5/sku/csv-sku/')).body).toMatchObject({ brand: 'csv-brand-1', size_x_mm: 70, attributes: { a: 'b' } });
    const noEntity = await t.call('POST', IMPORT, { raw: { body: csv, type: 'text/csv' } });
    expect(noEntity.status).toBe(400);
  });
});

describe('import from the CLI (build)', () => {
  it('imports JSON and CSV into a data directory, reporting failures with exit code 1', async () => {
    const dir = t.dataDir + '-cli';
    const cli = (...args: string[]) => run(process.execPath, [path.join(root, 'dist/main/cli/cli.js'), ...args, '--data-dir', dir]);
    const ok = await cli('import', samplePath);
    expect(JSON.parse(ok.stdout).created.skus).toBe(8);
    const csvFile = path.join(t.dataDir, 'kpis.csv');
    writeFileSync(csvFile, 'cid,name,units\nNEW,New KPI,pcs\n');
    const csv = await cli('import', '--entity', 'kpi', csvFile);
    expect(JSON.parse(csv.stdout).created.kpis).toBe(1);
    const badFile = path.join(t.dataDir, 'bad.csv');
    writeFileSync(badFile, 'id,name,brand\nx,Bad,missing-brand\n');
    const bad = await cli('import', '--entity', 'sku', badFile).then(() => null, (e: { code: number; stderr: string }) => e);
    expect(bad?.code).toBe(1);
    expect(JSON.parse(bad!.stderr).failures[0]).toMatchObject({ entity: 'skus', index: 0, errors: { brand: ['Invalid pk "missing-brand" - object does not exist.'] } });
  });
});
