// v1.5 SKUs, displays, planograms, planogram records, MHLs, MHL records and visits over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.post('/api/v1.5/brands/', { id: 'br', name: 'Brand' });
  await t.post('/api/v1.5/categories/', { id: 'cat', name: 'Category' });
  await t.post('/api/v1.5/manufacturers/', { id: 'man', name: 'Maker' });
});
afterAll(async () => {
  await t?.close();
});

describe('sku', () => {
  it('creates (answering the record), reads, filters by cid, updates', async () => {
    const body = {
      id: 'sku-1', cid: 'C-1', ean13: '4006381333931', name: 'Cola 0.5l', brand: 'br', category: 'cat', manufacturer: 'man',
      size_x_mm: 65, size_y_mm: 200, size_z_mm: 65, attributes: { flavour: 'cola' },
    };
    const created = await t.post('/api/v1.5/sku/', body);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ ...body, image: null });
    await t.post('/api/v1.5/sku/', { id: 'sku-2', cid: 'C-2', name: 'Lemonade' });
    expect((await t.get('/api/v1.5/sku/sku-1/')).body.attributes).toEqual({ flavour: 'cola' });
    const byCid = await t.get('/api/v1.5/sku/?cid=C-2');
    expect(byCid.body.count).toBe(1);
    expect(byCid.body.results[0].id).toBe('sku-2');
    expect((await t.get('/api/v1.5/sku/?cid=none')).body).toEqual({ count: 0, next: null, previous: null, results: [] });
    const patched = await t.patch('/api/v1.5/sku/sku-2/', { brand: 'br', size_x_mm: null });
    expect(patched.status).toBe(200);
    expect(patched.body.brand).toBe('br');
    const put = await t.put('/api/v1.5/sku/sku-2/', { name: 'Lemonade 1l', cid: 'C-2b' });
    expect(put.body).toMatchObject({ id: 'sku-2', name: 'Lemonade 1l', cid: 'C-2b', brand: 'br' });
    expect((await t.delete('/api/v1.5/sku/sku-2/')).status).toBe(405);
  });

  it('refuses unknown brand/category ids with DRF text and stores nothing', async () => {
    const before = t.snapshot();
    const res = await t.post('/api/v1.5/sku/', { name: 'X', brand: 'nope', category: 'cat', manufacturer: 'zzz' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ brand: ['Invalid pk "nope" - object does not exist.'], manufacturer: ['Invalid pk "zzz" - object does not exist.'] });
    expect(t.snapshot()).toEqual(before);
  });

  it('renaming a brand cascades to its SKUs', async () => {
    await t.post('/api/v1.5/brands/', { id: 'br-old', name: 'Old' });
    await t.post('/api/v1.5/sku/', { id: 'sku-r', name: 'Renamed brand SKU', brand: 'br-old' });
    expect((await t.put('/api/v1.5/brands/br-old/', { id: 'br-new' })).status).toBe(200);
    expect((await t.get('/api/v1.5/sku/sku-r/')).body.brand).toBe('br-new');
  });
});

describe('displays, planograms, planogram records', () => {
  it('ties a planogram to a display and places SKUs', async () => {
    expect((await t.post('/api/v1.5/displays/', { id: 'd1', name: 'Aisle 1' })).status).toBe(201);
    expect((await t.get('/api/v1.5/displays/d1/')).body).toEqual({ id: 'd1', name: 'Aisle 1', planogram: null, musthavelist: null });
    expect((await t.post('/api/v1.5/planograms/', { id: 'p1', name: 'Drinks', display: 'd1' })).status).toBe(201);
    expect((await t.get('/api/v1.5/displays/d1/')).body.planogram).toBe('p1');
    expect((await t.get('/api/v1.5/planograms/p1/')).body).toEqual({ id: 'p1', name: 'Drinks', display: 'd1' });
    const rec = await t.post('/api/v1.5/planogram_records/', {
      id: 'pr1', planogram: 'p1', sku: 'sku-1', rack_index: 0, shelf_index: 1, product_index: 2, facing_x: 3,
    });
    expect(rec.status).toBe(201);
    const got = await t.get('/api/v1.5/planogram_records/pr1/');
    expect(got.body).toMatchObject({ id: 'pr1', planogram: 'p1', sku: 'sku-1', rack_index: 0, shelf_index: 1, product_index: 2, facing_x: 3, facing_y: 1, width: null, height: null });
    expect(got.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const form = await t.call('PATCH', '/api/v1.5/planogram_records/pr1/', { form: { facing_y: '2', width: '70' } });
    expect(form.status).toBe(200);
    expect(form.body).toMatchObject({ facing_y: 2, width: 70 });
    expect((await t.put('/api/v1.5/planogram_records/pr1/', { shelf_index: 0 })).body.shelf_index).toBe(0);
    expect((await t.get('/api/v1.5/planogram_records/')).body.count).toBe(1);
    expect((await t.put('/api/v1.5/planograms/p1/', { name: 'Soft drinks' })).body.name).toBe('Soft drinks');
    expect((await t.get('/api/v1.5/planograms/')).body).toEqual({ count: 1, next: null, previous: null, results: [{ id: 'p1', name: 'Soft drinks', display: 'd1' }] });
    expect((await t.get('/api/v1.5/displays/')).body.results).toEqual([{ id: 'd1', name: 'Aisle 1', planogram: 'p1', musthavelist: null }]);
    expect((await t.patch('/api/v1.5/planograms/p1/', { display: null })).body.display).toBeNull();
    expect((await t.put('/api/v1.5/planograms/p1/', { display: 'd1' })).body.display).toBe('d1');
    expect((await t.patch('/api/v1.5/displays/d1/', { name: 'Aisle one' })).body.name).toBe('Aisle one');
    expect((await t.put('/api/v1.5/displays/d1/', { name: 'Aisle 1' })).status).toBe(200);
  });

  it('refuses a display that does not exist', async () => {
    const before = t.snapshot();
    const res = await t.post('/api/v1.5/planograms/', { name: 'Ghost', display: 'no-such-display' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ display: ['Invalid pk "no-such-display" - object does not exist.'] });
    expect(t.snapshot()).toEqual(before);
  });

  it('deletes a record, a planogram with its records, a display', async () => {
    await t.post('/api/v1.5/planogram_records/', { id: 'pr2', planogram: 'p1', sku: 'sku-1', rack_index: 0, shelf_index: 0, product_index: 1 });
    const del = await t.delete('/api/v1.5/planogram_records/pr2/');
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ result: 'OK' });
    expect((await t.get('/api/v1.5/planogram_records/pr2/')).status).toBe(404);
    expect((await t.delete('/api/v1.5/planograms/p1/')).body).toEqual({ result: 'OK' });
    expect((await t.get('/api/v1.5/planogram_records/pr1/')).status).toBe(404);
    expect((await t.delete('/api/v1.5/displays/d1/')).status).toBe(200);
    expect((await t.delete('/api/v1.5/displays/d1/')).status).toBe(404);
  });
});

describe('mhl and mhl_record', () => {
  it('full CRUD, by-id MHL carries musthavelist', async () => {
    await t.post('/api/v1.5/displays/', { id: 'd2', name: 'Aisle 2' });
    expect((await t.post('/api/v1.5/mhl/', { id: 'm1', name: 'Core range', display: 'd2' })).status).toBe(201);
    expect((await t.get('/api/v1.5/mhl/m1/')).body).toEqual({ id: 'm1', name: 'Core range', display: 'd2', musthavelist: 'm1' });
    expect((await t.get('/api/v1.5/mhl/')).body.results).toEqual([{ id: 'm1', name: 'Core range', display: 'd2' }]);
    expect((await t.get('/api/v1.5/displays/d2/')).body.musthavelist).toBe('m1');
    const rec = await t.post('/api/v1.5/mhl_record/', { id: 'mr1', musthavelist: 'm1', sku: 'sku-1', sku1: 'sku-r' });
    expect(rec.status).toBe(201);
    expect((await t.get('/api/v1.5/mhl_record/mr1/')).body).toEqual({
      id: 'mr1', name: null, musthavelist: 'm1', sku: 'sku-1', sku1: 'sku-r', sku2: null, sku3: null, sku4: null, sku5: null, sku6: null,
    });
    expect((await t.patch('/api/v1.5/mhl_record/mr1/', { sku2: 'sku-2' })).body.sku2).toBe('sku-2');
    expect((await t.put('/api/v1.5/mhl_record/mr1/', { name: 'Cola' })).body.name).toBe('Cola');
    expect((await t.get('/api/v1.5/mhl_record/')).body.count).toBe(1);
    expect((await t.put('/api/v1.5/mhl/m1/', { name: 'Core' })).body).toEqual({ id: 'm1', name: 'Core', display: 'd2' });
    expect((await t.patch('/api/v1.5/mhl/m1/', { display: null })).body.display).toBeNull();
    expect((await t.post('/api/v1.5/mhl_record/', { musthavelist: 'm1', sku: 'unknown' })).body).toEqual({ sku: ['Invalid pk "unknown" - object does not exist.'] });
    expect((await t.delete('/api/v1.5/mhl/m1/')).status).toBe(200);
    expect((await t.get('/api/v1.5/mhl_record/mr1/')).status).toBe(404);
    await t.post('/api/v1.5/mhl/', { id: 'm2', name: 'Second' });
    await t.post('/api/v1.5/mhl_record/', { id: 'mr2', musthavelist: 'm2', sku: 'sku-1' });
    expect((await t.delete('/api/v1.5/mhl_record/mr2/')).body).toEqual({ result: 'OK' });
  });
});

describe('visits (v1.5)', () => {
  it('creates, reads, lists, updates; PUT/PATCH keep other fields', async () => {
    const body = {
      id: 'v-1', shop: 'shop-7', agent: 'agent-1', started_date: '2026-11-20T09:30:00Z', task: 'audit',
      latitude: 52.5, longitude: 13.4, shop_name: 'Corner shop', shop_area: 'north',
      gps_shop: [{ lat: 52.5, lon: 13.4 }], images: [], current_agent_name: 'Ann', current_agent_route: 'R1',
      moderation: 'none', results: [{ id: 'r1', status: 'ok', update_type: 'x', message_type: 'text', message: 'fine' }], helpdesk: 'hd',
    };
    const created = await t.post('/api/v1.5/visits/', body);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ ...body, name: null, started_date: '2026-11-20T09:30:00.000Z' });
    expect((await t.get('/api/v1.5/visits/v-1/')).body.gps_shop).toEqual([{ lat: 52.5, lon: 13.4 }]);
    expect((await t.patch('/api/v1.5/visits/v-1/', { shop: 'shop-8' })).body).toMatchObject({ shop: 'shop-8', agent: 'agent-1' });
    expect((await t.put('/api/v1.5/visits/v-1/', { agent: 'agent-2' })).body).toMatchObject({ shop: 'shop-8', agent: 'agent-2' });
    const generated = await t.post('/api/v1.5/visits/', {});
    expect(generated.status).toBe(201);
    expect(generated.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await t.get('/api/v1.5/visits/')).body.count).toBe(2);
    expect((await t.delete('/api/v1.5/visits/v-1/')).status).toBe(405);
  });

  it('validates coordinates and dates DRF-style', async () => {
    const res = await t.post('/api/v1.5/visits/', { latitude: 91, started_date: 'yesterday', gps_shop: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.latitude).toEqual(['Ensure this value is less than or equal to 90.']);
    expect(res.body.started_date[0]).toMatch(/^Datetime has wrong format/);
    expect(res.body.gps_shop).toEqual(['Expected a dictionary of items.']);
  });
});

describe('the interface\'s other spellings and HTTP niceties', () => {
  it('serves by-id MHL and planogram records under /api/data/v1.5 and KPIs under /api/data/v1.1', async () => {
    await t.post('/api/v1.5/mhl/', { id: 'alias-mhl', name: 'Alias' });
    expect((await t.get('/api/data/v1.5/mhl/alias-mhl/')).body).toMatchObject({ id: 'alias-mhl', musthavelist: 'alias-mhl' });
    expect((await t.get('/api/data/v1.5/planogram_records/')).status).toBe(200);
    expect((await t.get('/api/data/v1.1/kpi/')).body.count).toBe(0);
  });

  it('keeps an id when PUT repeats it, and answers HEAD and OPTIONS', async () => {
    expect((await t.put('/api/v1.5/brands/br/', { id: 'br', name: 'Brand' })).status).toBe(200);
    const head = await t.call('HEAD', '/api/v1.5/brands/');
    expect(head.status).toBe(200);
    const options = await t.call('OPTIONS', '/api/v1.5/brands/br/');
    expect(options.status).toBe(200);
    expect(options.headers.get('allow')).toBe('GET, HEAD, OPTIONS, PATCH, PUT');
  });
});
