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
    expect(created.body).toEqual({ ...body, name: null, started_date: '2026-11-20T09:30:00.000Z', is_new: true });
    expect((await t.get('/api/v1.5/visits/v-1/')).body.gps_shop).toEqual([{ lat: 52.5, lon: 13.4 }]);
    expect((await t.patch('/api/v1.5/visits/v-1/', { shop: 'shop-8' })).body).toMatchObject({ shop: 'shop-8', agent: 'agent-1' });
    expect((await t.put('/api/v1.5/visits/v-1/', { agent: 'agent-2' })).body).toMatchObject({ shop: 'shop-8', agent: 'agent-2' });
    const generated = await t.post('/api/v1.5/visits/', {});
    expect(generated.status).toBe(201);
    expect(generated.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await t.get('/api/v1.5/visits/')).body.count).toBe(2);
    expect((await t.delete('/api/v1.5/visits/v-1/')).status).toBe(405);
  });

  it("shows the Data API's is_new on every visit, read-only: ack clears it, an update sets it again", async () => {
    // A client cannot set it through v1.5: the flag is the Data API's.
    expect((await t.post('/api/v1.5/visits/', { id: 'v-new', shop: 'shop-new', is_new: false })).body.is_new).toBe(true);
    const dataId = (await t.get('/api/data/v1.0/visits/?cid=v-new')).body.results[0].id;
    expect((await t.post(`/api/data/v1.0/visits/${dataId}/ack/`, {})).status).toBe(200);
    const listed = async () => (await t.get('/api/v1.5/visits/?shop=shop-new')).body.results.map((v: any) => v.is_new);
    expect(await listed()).toEqual([false]);
    expect((await t.get('/api/v1.5/visits/v-new/')).body.is_new).toBe(false);
    expect((await t.patch('/api/v1.5/visits/v-new/', { is_new: false, name: 'Renamed' })).body).toMatchObject({ name: 'Renamed', is_new: true });
    expect(await listed()).toEqual([true]);
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

describe("a display's planogram and must-have list (one rule, writable)", () => {
  it('defaults to the newest tied to the display, keeps an explicit choice, and falls back when it is cleared or deleted', async () => {
    expect((await t.post('/api/v1.5/displays/', { id: 'dc', name: 'Chosen' })).status).toBe(201);
    for (const id of ['dc-old', 'dc-new']) expect((await t.post('/api/v1.5/planograms/', { id, name: id, display: 'dc' })).status).toBe(201);
    for (const id of ['dcm-old', 'dcm-new']) expect((await t.post('/api/v1.5/mhl/', { id, name: id, display: 'dc' })).status).toBe(201);
    // Unset: the newest one, the same one the reports score against.
    expect((await t.get('/api/v1.5/displays/dc/')).body).toEqual({ id: 'dc', name: 'Chosen', planogram: 'dc-new', musthavelist: 'dcm-new' });

    // The display form sends both fields: the choice sticks instead of silently reverting.
    const patched = await t.patch('/api/v1.5/displays/dc/', { planogram: 'dc-old', musthavelist: 'dcm-old' });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toEqual({ id: 'dc', name: 'Chosen', planogram: 'dc-old', musthavelist: 'dcm-old' });
    expect((await t.get('/api/v1.5/displays/dc/')).body).toMatchObject({ planogram: 'dc-old', musthavelist: 'dcm-old' });
    expect((await t.get('/api/v1.5/displays/?planogram=dc-old')).body.results.map((d: any) => d.id)).toEqual(['dc']);

    // A newer planogram does not override an explicit choice.
    await t.post('/api/v1.5/planograms/', { id: 'dc-newest', name: 'newest', display: 'dc' });
    expect((await t.get('/api/v1.5/displays/dc/')).body.planogram).toBe('dc-old');

    expect((await t.patch('/api/v1.5/displays/dc/', { planogram: 'ghost' })).body).toEqual({ planogram: ['Invalid pk "ghost" - object does not exist.'] });
    // null clears the choice: back to the newest; deleting the chosen one falls back too.
    expect((await t.patch('/api/v1.5/displays/dc/', { planogram: null })).body.planogram).toBe('dc-newest');
    expect((await t.delete('/api/v1.5/mhl/dcm-old/')).status).toBe(200);
    expect((await t.get('/api/v1.5/displays/dc/')).body.musthavelist).toBe('dcm-new');
    const created = await t.post('/api/v1.5/displays/', { id: 'dc2', name: 'Created with a choice', planogram: 'dc-old' });
    expect(created.status, created.text).toBe(201);
    expect((await t.get('/api/v1.5/displays/dc2/')).body).toMatchObject({ planogram: 'dc-old', musthavelist: null });
  });
});

describe('list filters, search and ordering (DRF conventions)', () => {
  it('filters SKUs on foreign keys and main fields, searches names and customer ids, sorts both ways', async () => {
    await t.post('/api/v1.5/brands/', { id: 'br-f', name: 'Fizz' });
    await t.post('/api/v1.5/categories/', { id: 'cat-f', name: 'Fizzy drinks' });
    const rows = [
      { id: 'f-1', cid: 'FZ-100', name: 'Apple fizz', brand: 'br-f', category: 'cat-f' },
      { id: 'f-2', cid: 'FZ-200', name: 'banana FIZZ', brand: 'br-f' },
      { id: 'f-3', cid: 'OT-300', name: 'Cherry 50%_off', category: 'cat-f' },
    ];
    for (const r of rows) expect((await t.post('/api/v1.5/sku/', r)).status).toBe(201);
    const ids = async (query: string) => {
      const res = await t.get(`/api/v1.5/sku/?${query}`);
      expect(res.status, res.text).toBe(200);
      return res.body.results.map((s: any) => s.id);
    };
    expect(await ids('brand=br-f')).toEqual(['f-1', 'f-2']);
    expect(await ids('brand=br-f&category=cat-f')).toEqual(['f-1']);
    expect(await ids('category=cat-f&ordering=-name')).toEqual(['f-3', 'f-1']);
    expect(await ids('search=fizz&ordering=-cid')).toEqual(['f-2', 'f-1']);
    expect(await ids('search=fz-2')).toEqual(['f-2']);
    // LIKE wildcards in the term are plain text.
    expect(await ids('search=%25_')).toEqual(['f-3']);
    expect(await ids('search=_')).toEqual(['f-3']);
    expect(await ids('id__in=f-3,f-1,nope&ordering=name')).toEqual(['f-1', 'f-3']);
    // Unknown ordering fields are ignored, as DRF does.
    expect(await ids('brand=br-f&ordering=nope,-id')).toEqual(['f-2', 'f-1']);
    const paged = await t.get('/api/v1.5/sku/?brand=br-f&ordering=-name&limit=1');
    expect(paged.body.count).toBe(2);
    expect(new URL(paged.body.next).searchParams.get('brand')).toBe('br-f');
    expect(new URL(paged.body.next).searchParams.get('ordering')).toBe('-name');
  });

  it('filters planograms and MHLs by display, records by their parent, visits by agent, shop, day and is_new', async () => {
    await t.post('/api/v1.5/displays/', { id: 'fd', name: 'Filtered' });
    await t.post('/api/v1.5/planograms/', { id: 'fp', name: 'Filtered planogram', display: 'fd' });
    await t.post('/api/v1.5/mhl/', { id: 'fm', name: 'Filtered MHL', display: 'fd' });
    await t.post('/api/v1.5/planogram_records/', { id: 'fpr', planogram: 'fp', sku: 'f-1', rack_index: 0, shelf_index: 1, product_index: 0 });
    await t.post('/api/v1.5/mhl_record/', { id: 'fmr', musthavelist: 'fm', sku: 'f-2' });
    expect((await t.get('/api/v1.5/planograms/?display=fd')).body.results.map((p: any) => p.id)).toEqual(['fp']);
    expect((await t.get('/api/v1.5/mhl/?display=fd')).body.results.map((p: any) => p.id)).toEqual(['fm']);
    expect((await t.get('/api/v1.5/planogram_records/?planogram=fp')).body.results.map((p: any) => p.id)).toEqual(['fpr']);
    expect((await t.get('/api/v1.5/mhl_record/?musthavelist=fm')).body.results.map((p: any) => p.id)).toEqual(['fmr']);
    expect((await t.get('/api/v1.5/displays/?search=filt')).body.results.map((p: any) => p.id)).toEqual(['fd']);

    await t.post('/api/v1.5/visits/', { id: 'fv1', agent: 'ag-1', shop: 'shop-1', started_date: '2026-11-20T23:30:00Z' });
    await t.post('/api/v1.5/visits/', { id: 'fv2', agent: 'ag-2', shop: 'shop-1', started_date: '2026-11-21T00:10:00Z' });
    const visitIds = async (query: string) => (await t.get(`/api/v1.5/visits/?${query}`)).body.results.map((v: any) => v.id);
    expect(await visitIds('agent=ag-1')).toEqual(['fv1']);
    expect(await visitIds('shop=shop-1&ordering=-started_date')).toEqual(['fv2', 'fv1']);
    expect(await visitIds('day=2026-11-21')).toEqual(['fv2']);
    expect(await visitIds('day=2026-11-20&shop=shop-1')).toEqual(['fv1']);
    expect(await visitIds('is_new=false&shop=shop-1')).toEqual([]);
    expect(await visitIds('is_new=true&shop=shop-1')).toEqual(['fv1', 'fv2']);
    expect((await t.get('/api/v1.5/visits/?day=yesterday')).status).toBe(400);
    // A day of a viewer in UTC+1 (the visits screen sends its local midnights), and a page's ids.
    expect(await visitIds('started_date__gte=2026-11-20T23:00:00Z&started_date__lt=2026-11-21T23:00:00Z&shop=shop-1')).toEqual(['fv1', 'fv2']);
    // 20 November in UTC+1 ends before fv1 starts (23:30 UTC is past midnight there), unlike ?day=2026-11-20.
    expect(await visitIds('started_date__gte=2026-11-20T00:00:00%2B01:00&started_date__lt=2026-11-21T00:00:00%2B01:00&shop=shop-1')).toEqual([]);
    expect(await visitIds('started_date__lt=2026-11-21T00:00:00Z&shop=shop-1')).toEqual(['fv1']);
    expect(await visitIds('id__in=fv2,nope')).toEqual(['fv2']);
    // Every list looks records up by id (a page's names in one request), not only SKUs and visits.
    expect((await t.get('/api/v1.5/displays/?id__in=fd,nope')).body.results.map((p: any) => p.id)).toEqual(['fd']);
    expect((await t.get('/api/v1.5/planograms/?id__in=fp')).body.results.map((p: any) => p.name)).toEqual(['Filtered planogram']);
    expect((await t.get('/api/v1.5/mhl/?id__in=fm,fp')).body.results.map((p: any) => p.id)).toEqual(['fm']);
    expect((await t.get('/api/v1.5/brands/?id__in=br,cat')).body.results.map((p: any) => p.id)).toEqual(['br']);
    expect((await t.get('/api/v1.5/mhl_record/?id__in=fmr')).body.count).toBe(1);
    expect((await t.get('/api/v1.5/visits/?started_date__gte=soon')).status).toBe(400);
  });

  it('documents every filter, search and ordering parameter in the OpenAPI description', async () => {
    const doc = (await t.get('/api/schema/')).body;
    const params = (path: string) => doc.paths[path].get.parameters.map((p: any) => p.name).sort();
    expect(params('/api/v1.5/sku/')).toEqual(
      ['brand', 'category', 'cid', 'ean13', 'id__in', 'limit', 'manufacturer', 'offset', 'ordering', 'search'],
    );
    expect(params('/api/v1.5/planograms/')).toEqual(['display', 'id__in', 'limit', 'offset', 'ordering', 'search']);
    expect(params('/api/v1.5/displays/')).toEqual(['id__in', 'limit', 'musthavelist', 'offset', 'ordering', 'planogram', 'search']);
    expect(params('/api/v1.5/brands/')).toEqual(['id__in', 'limit', 'offset', 'ordering', 'search']);
    expect(params('/api/v1.5/visits/')).toEqual([
      'agent', 'day', 'id__in', 'is_new', 'limit', 'offset', 'ordering', 'search', 'shop', 'started_date__gte', 'started_date__lt', 'task',
    ]);
  });
});
