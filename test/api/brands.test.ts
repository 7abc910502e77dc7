// v1.5 catalogs end to end over HTTP: brands in depth; categories and manufacturers share the same
// generic code, checked by a full pass each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, walkPages, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('brands', () => {
  it('creates with a client id, reads, lists', async () => {
    const created = await t.post('/api/v1.5/brands/', { id: 'b-1', name: 'Acme' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ result: 'CREATED', id: 'b-1' });
    const one = await t.get('/api/v1.5/brands/b-1/');
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ id: 'b-1', name: 'Acme' });
    const list = await t.get('/api/v1.5/brands/');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ count: 1, next: null, previous: null, results: [{ id: 'b-1', name: 'Acme' }] });
  });

  it('generates a uuidv7 id when none is given', async () => {
    const created = await t.post('/api/v1.5/brands/', { name: 'No id' });
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await t.get(`/api/v1.5/brands/${created.body.id}/`)).body.name).toBe('No id');
  });

  it('accepts urlencoded and multipart bodies', async () => {
    const form = await t.call('POST', '/api/v1.5/brands/', { form: { id: 'b-form', name: 'Form brand' } });
    expect(form.status).toBe(201);
    const fd = new FormData();
    fd.append('id', 'b-multi');
    fd.append('name', 'Multipart brand');
    const multi = await t.call('POST', '/api/v1.5/brands/', { multipart: fd });
    expect(multi.status).toBe(201);
    expect((await t.get('/api/v1.5/brands/b-form/')).body.name).toBe('Form brand');
    expect((await t.get('/api/v1.5/brands/b-multi/')).body.name).toBe('Multipart brand');
  });

  it('answers with and without the trailing slash', async () => {
    expect((await t.get('/api/v1.5/brands/b-1')).body).toEqual({ id: 'b-1', name: 'Acme' });
    expect((await t.get('/api/v1.5/brands')).status).toBe(200);
  });

  it('PUT and PATCH update the name', async () => {
    const put = await t.put('/api/v1.5/brands/b-1/', { name: 'Acme Corp' });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ id: 'b-1', name: 'Acme Corp' });
    const patch = await t.patch('/api/v1.5/brands/b-1/', { name: 'Acme Inc' });
    expect(patch.body).toEqual({ id: 'b-1', name: 'Acme Inc' });
    expect((await t.get('/api/v1.5/brands/b-1/')).body.name).toBe('Acme Inc');
  });

  it('PATCH with a new id renames the brand', async () => {
    await t.post('/api/v1.5/brands/', { id: 'old-id', name: 'Renamed' });
    const res = await t.patch('/api/v1.5/brands/old-id/', { id: 'new-id' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'new-id', name: 'Renamed' });
    expect((await t.get('/api/v1.5/brands/old-id/')).status).toBe(404);
    expect((await t.get('/api/v1.5/brands/new-id/')).status).toBe(200);
    // For the sync engine a rename is the old id deleted and the new one written, in one transaction.
    const outbox = (t.snapshot().outbox as Array<{ entity: string; record_id: string; op: string }>).map((o) => `${o.entity}:${o.record_id}:${o.op}`);
    expect(outbox.slice(-3)).toEqual(['brand:old-id:upsert', 'brand:old-id:delete', 'brand:new-id:upsert']);
  });

  it('rejects a duplicate id with DRF unique text and stores nothing', async () => {
    const before = t.snapshot();
    const res = await t.post('/api/v1.5/brands/', { id: 'b-1', name: 'Again' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ id: ['brand with this id already exists.'] });
    expect(t.snapshot()).toEqual(before);
  });

  it('answers 404 for an unknown id and 405 with Allow for DELETE', async () => {
    const missing = await t.get('/api/v1.5/brands/nope/');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Not found.' });
    const del = await t.delete('/api/v1.5/brands/b-1/');
    expect(del.status).toBe(405);
    expect(del.body).toEqual({ detail: 'Method "DELETE" not allowed.' });
    expect(del.headers.get('allow')).toBe('GET, HEAD, OPTIONS, PATCH, PUT');
  });

  it('walks next to the end with absolute URLs', async () => {
    for (let i = 0; i < 23; i++) await t.post('/api/v1.5/brands/', { id: `page-${String(i).padStart(2, '0')}`, name: `P${i}` });
    const first = await t.get('/api/v1.5/brands/?limit=5');
    const total = first.body.count;
    expect(total).toBeGreaterThanOrEqual(23);
    expect(first.body.previous).toBeNull();
    expect(first.body.next).toBe(`${t.url}/api/v1.5/brands/?limit=5&offset=5`);
    const pages = await walkPages(t, `${t.url}/api/v1.5/brands/?limit=5`);
    expect(pages).toHaveLength(Math.ceil(total / 5));
    const ids = pages.flatMap((p) => p.results.map((r: { id: string }) => r.id));
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    expect(pages.at(-1).next).toBeNull();
    expect(pages[1].previous).toBe(`${t.url}/api/v1.5/brands/?limit=5`);
    expect(pages[2].previous).toBe(`${t.url}/api/v1.5/brands/?limit=5&offset=5`);
  });

  it('takes limit and offset from a form body on GET', async () => {
    const res = await t.call('GET', '/api/v1.5/brands/', { form: { limit: 2, offset: 1 } });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(2);
    expect(res.body.previous).toBe(`${t.url}/api/v1.5/brands/?limit=2`);
  });
});

describe.each(['categories', 'manufacturers'])('%s', (family) => {
  const label = family === 'categories' ? 'category' : 'manufacturer';
  it('supports list, create, read, PUT, PATCH and refuses DELETE', async () => {
    expect((await t.post(`/api/v1.5/${family}/`, { id: 'x1', name: 'One' })).status).toBe(201);
    expect((await t.post(`/api/v1.5/${family}/`, { id: 'x1', name: 'Dup' })).body).toEqual({ id: [`${label} with this id already exists.`] });
    expect((await t.get(`/api/v1.5/${family}/x1/`)).body).toEqual({ id: 'x1', name: 'One' });
    expect((await t.put(`/api/v1.5/${family}/x1/`, { id: 'x1', name: 'Two' })).body).toEqual({ id: 'x1', name: 'Two' });
    expect((await t.patch(`/api/v1.5/${family}/x1/`, { name: 'Three' })).body).toEqual({ id: 'x1', name: 'Three' });
    const list = await t.get(`/api/v1.5/${family}/`);
    expect(list.body.count).toBe(1);
    expect((await t.delete(`/api/v1.5/${family}/x1/`)).status).toBe(405);
  });
});
