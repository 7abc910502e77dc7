// DRF's LimitOffsetPagination never refuses a page request (interface-notes.md): a bad limit means the
// default page size, a bad offset means 0, an over-large limit the maximum. Infinity,
// -Infinity and 1e400 once answered 500 on every list, then 400; now they fall back like any bad value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../main/server/http/pagination.js';
import { startTestServer, type TestServer } from './harness.js';

let t: TestServer;
const BRANDS = DEFAULT_PAGE_SIZE + 5;
beforeAll(async () => {
  t = await startTestServer();
  const brands = Array.from({ length: BRANDS }, (_, i) => ({ id: `b${String(i).padStart(4, '0')}`, name: `Brand ${i}` }));
  expect((await t.post('/api/app/v1/import/', { brands })).status).toBe(200);
});
afterAll(async () => {
  await t?.close();
});

const lists = ['/api/v1.5/brands/', '/api/data/v1.0/brands/', '/api/app/v1/keys/', '/api/v1.5/reports/'];

describe('bad paging falls back as DRF does', () => {
  it.each(['Infinity', '-Infinity', '1e400', 'ten', '-5', '0', '1.5', 'NaN', '', '0x10'])('limit=%s gives the default page size', async (limit) => {
    const res = await t.get(`/api/v1.5/brands/?limit=${encodeURIComponent(limit)}`);
    expect(res.status, res.text.slice(0, 200)).toBe(200);
    expect(res.body.count).toBe(BRANDS);
    expect(res.body.results).toHaveLength(DEFAULT_PAGE_SIZE);
    expect(res.body.next).toContain(`limit=${DEFAULT_PAGE_SIZE}`);
  });

  it.each(['Infinity', '-Infinity', '1e400', 'abc', '-1', '2.5', 'NaN'])('offset=%s gives the first page', async (offset) => {
    const res = await t.get(`/api/v1.5/brands/?limit=3&offset=${encodeURIComponent(offset)}`);
    expect(res.status, res.text.slice(0, 200)).toBe(200);
    expect(res.body.results.map((b: { id: string }) => b.id)).toEqual(['b0000', 'b0001', 'b0002']);
    expect(res.body.previous).toBeNull();
  });

  it('an over-large limit is the maximum, an absurd offset an empty page, on every kind of list', async () => {
    for (const list of lists) {
      const res = await t.get(`${list}?limit=99999999999999999999&offset=99999999999999999999`);
      expect(res.status, `${list}: ${res.text.slice(0, 200)}`).toBe(200);
      expect(res.body.results).toEqual([]);
      const big = await t.get(`${list}?limit=${MAX_PAGE_SIZE * 10}&offset=Infinity`);
      expect(big.status, `${list}: ${big.text.slice(0, 200)}`).toBe(200);
      expect(big.body.results.length).toBe(Math.min(big.body.count, MAX_PAGE_SIZE));
    }
  });

  it('the same fallbacks for limit and offset sent in a GET form body, and for a repeated parameter (the last wins)', async () => {
    const form = await t.call('GET', '/api/v1.5/brands/', { form: { limit: 'lots', offset: '-Infinity' } });
    expect(form.status, form.text.slice(0, 200)).toBe(200);
    expect(form.body.results).toHaveLength(DEFAULT_PAGE_SIZE);
    const repeated = await t.get('/api/v1.5/brands/?limit=2&limit=4');
    expect(repeated.body.results).toHaveLength(4);
  });
});
