// Data API v1.0 over HTTP: the same records as v1.5 under integer ids, visits' is_new lifecycle,
// filters, kpivalue, md_import_status.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, walkPages, type TestServer } from './harness.js';

const D = '/api/data/v1.0';
let t: TestServer;
const sample = JSON.parse(readFileSync(new URL('../../samples/catalog.json', import.meta.url), 'utf8'));

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('before any import', () => {
  it('md_import_status is null and lists are empty', async () => {
    expect((await t.get(`${D}/md_import_status/`)).body).toEqual({ last_import_datetime: null });
    expect((await t.get(`${D}/tasks/`)).body).toEqual({ count: 0, next: null, previous: null, results: [] });
  });
});

describe('catalogs, SKUs, tasks, KPIs', () => {
  beforeAll(async () => {
    const res = await t.post('/api/app/v1/import/', sample);
    expect(res.status).toBe(200);
  });

  it('md_import_status tells the last import time', async () => {
    const res = await t.get(`${D}/md_import_status/`);
    expect(res.status).toBe(200);
    expect(Date.parse(res.body.last_import_datetime)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('shows v1.5 brands and categories with integer ids (and /brand/{id}/)', async () => {
    const brands = await t.get(`${D}/brands/`);
    expect(brands.body.count).toBe(5);
    const cola = brands.body.results.find((b: { name: string }) => b.name === 'Coca-Cola');
    expect(Number.isInteger(cola.id)).toBe(true);
    expect((await t.get(`${D}/brands/${cola.id}/`)).body).toEqual(cola);
    expect((await t.get(`${D}/brand/${cola.id}/`)).body).toEqual(cola);
    const cats = await t.get(`${D}/categories/?limit=2`);
    expect(cats.body.count).toBe(3);
    expect(cats.body.next).toBe(`${t.url}${D}/categories/?limit=2&offset=2`);
    const one = await t.get(`${D}/categories/${cats.body.results[0].id}/`);
    expect(one.body.name).toBe('Soft drinks');
    // a brand created through v1.5 appears in the Data API
    await t.post('/api/v1.5/brands/', { id: 'late', name: 'Late brand' });
    expect((await t.get(`${D}/brands/`)).body.results.at(-1).name).toBe('Late brand');
  });

  it('SKUs reference categories and brands by Data API id', async () => {
    const list = await t.get(`${D}/sku/`);
    expect(list.body.count).toBe(8);
    const can = list.body.results.find((s: { cid: string }) => s.cid === 'CC-CAN-330');
    expect(can).toMatchObject({ name: 'Coca-Cola can 0.33 l', size_x_mm: 66, attributes: { package: 'can', volume_ml: '330' } });
    const cat = await t.get(`${D}/categories/${can.category_id}/`);
    expect(cat.body.name).toBe('Soft drinks');
    const brand = await t.get(`${D}/brands/${can.brand_id}/`);
    expect(brand.body.name).toBe('Coca-Cola');
    expect((await t.get(`${D}/sku/${can.id}/`)).body).toEqual(can);
  });

  it('tasks and KPIs', async () => {
    const tasks = await t.get(`${D}/tasks/`);
    expect(tasks.body.results[0]).toMatchObject({ name: 'Photograph the drinks cooler', is_enabled: true, is_required: true });
    expect((await t.get(`${D}/tasks/${tasks.body.results[1].id}/`)).body.is_required).toBe(false);
    const kpis = await t.get(`${D}/kpi/`);
    expect(kpis.body.count).toBe(3);
    expect((await t.get(`${D}/kpi/${kpis.body.results[0].id}/`)).body).toMatchObject({ cid: 'OSA', name: 'On-shelf availability', units: '%' });
  });

  it('unknown or non-integer ids are 404; Data API is read-only (405)', async () => {
    expect((await t.get(`${D}/sku/999999/`)).body).toEqual({ detail: 'Not found.' });
    expect((await t.get(`${D}/sku/abc/`)).status).toBe(404);
    expect((await t.get(`${D}/kpi/-1/`)).status).toBe(404);
    const post = await t.post(`${D}/brands/`, { name: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('visits', () => {
  let osa: number;
  let softDrinks: number;
  beforeAll(async () => {
    for (let i = 0; i < 7; i++) {
      await t.post('/api/v1.5/visits/', { id: `visit-${i}`, agent: i % 2 ? 'odd' : 'even', started_date: `2026-11-0${i + 1}T10:00:00Z`, name: `Visit ${i}` });
    }
    osa = (await t.get(`${D}/kpi/`)).body.results[0].id;
    softDrinks = (await t.get(`${D}/categories/`)).body.results[0].id;
  });

  it('lists new visits with cid = v1.5 id and walks pages', async () => {
    const list = await t.get(`${D}/visits/?limit=3`);
    expect(list.body.count).toBe(7);
    expect(list.body.results[0]).toMatchObject({ cid: 'visit-0', name: 'Visit 0', is_new: true });
    const pages = await walkPages(t, `${t.url}${D}/visits/?limit=3`);
    expect(pages.map((p) => p.results.length)).toEqual([3, 3, 1]);
  });

  it('filters by cid, agent and datetime_gte', async () => {
    expect((await t.get(`${D}/visits/?cid=visit-3`)).body.results.map((v: { cid: string }) => v.cid)).toEqual(['visit-3']);
    expect((await t.get(`${D}/visits/?agent=odd`)).body.count).toBe(3);
    expect((await t.get(`${D}/visits/?datetime_gte=2026-11-05T00:00:00Z`)).body.count).toBe(3);
    const bad = await t.get(`${D}/visits/?datetime_gte=soon`);
    expect(bad.status).toBe(400);
    expect(bad.body.datetime_gte[0]).toMatch(/^Datetime has wrong format/);
  });

  it('ack clears is_new; any later update sets it again', async () => {
    const v = (await t.get(`${D}/visits/?cid=visit-1`)).body.results[0];
    const ack = await t.post(`${D}/visits/${v.id}/ack/`);
    expect(ack.status).toBe(200);
    expect(ack.body).toEqual({ result: 'OK' });
    expect((await t.get(`${D}/visits/?cid=visit-1`)).body.count).toBe(0);
    expect((await t.get(`${D}/visits/?is_new=false`)).body.results.map((x: { cid: string }) => x.cid)).toEqual(['visit-1']);
    expect((await t.get(`${D}/visits/${v.id}/`)).body.is_new).toBe(false);
    await t.patch('/api/v1.5/visits/visit-1/', { shop: 'changed' });
    expect((await t.get(`${D}/visits/${v.id}/`)).body.is_new).toBe(true);
    expect((await t.post(`${D}/visits/999999/ack/`)).status).toBe(404);
  });

  it('kpivalue stores a value, validates kpi and category, and marks the visit new', async () => {
    const v = (await t.get(`${D}/visits/?cid=visit-2`)).body.results[0];
    await t.post(`${D}/visits/${v.id}/ack/`);
    const res = await t.post(`${D}/visits/${v.id}/kpivalue/`, { kpi: osa, value: 87.5, category: softDrinks });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ visit: v.id, kpi: osa, category: softDrinks, value: 87.5 });
    const form = await t.call('POST', `${D}/visits/${v.id}/kpivalue/`, { form: { kpi: osa, value: '90', category: softDrinks } });
    expect(form.status).toBe(200);
    const detail = (await t.get(`${D}/visits/${v.id}/`)).body;
    expect(detail).toMatchObject({ id: v.id, cid: 'visit-2', is_new: true, agent_id: 'even', scenes: [] });
    expect(detail.kpi_values).toHaveLength(1);
    expect(detail.kpi_values[0]).toMatchObject({ kpi: osa, category: softDrinks, value: 90 });
    const before = t.snapshot();
    const bad = await t.post(`${D}/visits/${v.id}/kpivalue/`, { kpi: 424242, value: 1, category: 424243 });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ kpi: ['Invalid pk "424242" - object does not exist.'], category: ['Invalid pk "424243" - object does not exist.'] });
    const missing = await t.post(`${D}/visits/${v.id}/kpivalue/`, { value: 'high' });
    expect(missing.body).toEqual({ kpi: ['This field is required.'], category: ['This field is required.'], value: ['A valid number is required.'] });
    expect((await t.post(`${D}/visits/999999/kpivalue/`, { kpi: osa, value: 1, category: softDrinks })).status).toBe(404);
    expect(t.snapshot()).toEqual(before);
  });
});
