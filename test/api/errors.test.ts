// Bad input of every class the issue lists: each gets a clear 4xx in DRF's shape (JSON, never a 500,
// never HTML), and nothing stored changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type CallOptions, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.post('/api/v1.5/brands/', { id: 'b1', name: 'Brand' });
  await t.post('/api/v1.5/brands/', { id: 'b2', name: 'Other brand' });
  await t.post('/api/v1.5/sku/', { id: 's1', name: 'SKU' });
  await t.post('/api/v1.5/planograms/', { id: 'p1', name: 'Planogram' });
});
afterAll(async () => {
  await t?.close();
});

interface Case {
  name: string;
  method: string;
  path: string;
  options?: CallOptions;
  status: number;
  body: unknown;
}

const big = 'x'.repeat(2 * 1024 * 1024);
const record = { planogram: 'p1', sku: 's1', rack_index: 0, shelf_index: 0, product_index: 0 };

const cases: Case[] = [
  { name: 'malformed JSON', method: 'POST', path: '/api/v1.5/brands/', options: { raw: { body: '{"name": "x"', type: 'application/json' } }, status: 400, body: { detail: 'Malformed request.' } },
  { name: 'JSON prototype poisoning', method: 'POST', path: '/api/v1.5/brands/', options: { raw: { body: '{"name":"x","__proto__":{"a":1}}', type: 'application/json' } }, status: 400, body: { detail: 'Malformed request.' } },
  { name: 'a list where an object goes', method: 'POST', path: '/api/v1.5/brands/', options: { json: [{ name: 'x' }] }, status: 400, body: { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] } },
  { name: 'missing required field', method: 'POST', path: '/api/v1.5/brands/', options: { json: {} }, status: 400, body: { name: ['This field is required.'] } },
  { name: 'empty body', method: 'POST', path: '/api/v1.5/categories/', options: { raw: { body: '', type: 'application/json' } }, status: 400, body: { name: ['This field is required.'] } },
  { name: 'blank name', method: 'POST', path: '/api/v1.5/brands/', options: { json: { name: '' } }, status: 400, body: { name: ['This field may not be blank.'] } },
  { name: 'null name', method: 'POST', path: '/api/v1.5/brands/', options: { json: { name: null } }, status: 400, body: { name: ['This field may not be null.'] } },
  { name: 'name over 255 characters', method: 'POST', path: '/api/v1.5/brands/', options: { json: { name: 'n'.repeat(256) } }, status: 400, body: { name: ['Ensure this field has no more than 255 characters.'] } },
  { name: 'cid over 255 characters', method: 'POST', path: '/api/v1.5/sku/', options: { json: { name: 'x', cid: 'c'.repeat(256) } }, status: 400, body: { cid: ['Ensure this field has no more than 255 characters.'] } },
  { name: 'wrong types', method: 'POST', path: '/api/v1.5/planogram_records/', options: { json: { ...record, rack_index: 'first', facing_x: 1.5, width: 'wide' } }, status: 400, body: { rack_index: ['A valid integer is required.'], facing_x: ['A valid integer is required.'], width: ['A valid integer is required.'] } },
  { name: 'wrong types in a form body', method: 'POST', path: '/api/v1.5/planogram_records/', options: { form: { ...record, shelf_index: 'top' } }, status: 400, body: { shelf_index: ['A valid integer is required.'] } },
  { name: 'negative index', method: 'POST', path: '/api/v1.5/planogram_records/', options: { json: { ...record, product_index: -1 } }, status: 400, body: { product_index: ['Ensure this value is greater than or equal to 0.'] } },
  { name: 'an id of the wrong kind (object)', method: 'POST', path: '/api/v1.5/brands/', options: { json: { id: { x: 1 }, name: 'x' } }, status: 400, body: { id: ['Not a valid string.'] } },
  { name: 'a reference of the wrong kind (list)', method: 'POST', path: '/api/v1.5/sku/', options: { json: { name: 'x', brand: ['b1', 'b2'] } }, status: 400, body: { brand: ['Not a valid string.'] } },
  { name: 'unknown reference', method: 'POST', path: '/api/v1.5/planogram_records/', options: { json: { ...record, sku: 'nope' } }, status: 400, body: { sku: ['Invalid pk "nope" - object does not exist.'] } },
  { name: 'display that does not exist', method: 'POST', path: '/api/v1.5/mhl/', options: { json: { name: 'MHL', display: 'ghost' } }, status: 400, body: { display: ['Invalid pk "ghost" - object does not exist.'] } },
  { name: 'duplicate id on create', method: 'POST', path: '/api/v1.5/sku/', options: { json: { id: 's1', name: 'Again' } }, status: 400, body: { id: ['sku with this id already exists.'] } },
  { name: 'rename onto an existing id', method: 'PATCH', path: '/api/v1.5/brands/b1/', options: { json: { id: 'b2' } }, status: 400, body: { id: ['brand with this id already exists.'] } },
  { name: 'unknown id', method: 'PUT', path: '/api/v1.5/brands/nope/', options: { json: { name: 'x' } }, status: 404, body: { detail: 'Not found.' } },
  { name: 'unknown id on delete', method: 'DELETE', path: '/api/v1.5/displays/nope/', status: 404, body: { detail: 'Not found.' } },
  { name: 'Data API id of the wrong kind', method: 'GET', path: '/api/data/v1.0/tasks/first/', status: 404, body: { detail: 'Not found.' } },
  { name: 'huge JSON body', method: 'POST', path: '/api/v1.5/brands/', options: { json: { name: big } }, status: 413, body: { detail: 'Request body is too large.' } },
  { name: 'huge form body', method: 'POST', path: '/api/v1.5/brands/', options: { form: { name: big } }, status: 413, body: { detail: 'Request body is too large.' } },
  { name: 'text/plain body', method: 'POST', path: '/api/v1.5/brands/', options: { raw: { body: 'name=x', type: 'text/plain' } }, status: 415, body: { detail: 'Unsupported media type "text/plain" in request.' } },
  { name: 'XML body', method: 'PATCH', path: '/api/v1.5/brands/b1/', options: { raw: { body: '<name>x</name>', type: 'application/xml' } }, status: 415, body: { detail: 'Unsupported media type "application/xml" in request.' } },
  { name: 'garbage multipart', method: 'POST', path: '/api/v1.5/brands/', options: { raw: { body: 'not multipart at all', type: 'multipart/form-data; boundary=xyz' } }, status: 400, body: undefined },
  { name: 'method not allowed on a collection', method: 'DELETE', path: '/api/v1.5/brands/', status: 405, body: { detail: 'Method "DELETE" not allowed.' } },
  { name: 'method not allowed on the Data API', method: 'PATCH', path: '/api/data/v1.0/visits/1/', options: { json: {} }, status: 405, body: { detail: 'Method "PATCH" not allowed.' } },
  { name: 'unknown path', method: 'GET', path: '/api/v1.5/nothing-here/', status: 404, body: { detail: 'Not found.' } },
  { name: 'bad percent-encoding', method: 'GET', path: '/api/v1.5/brands/%E0%A4%A/', status: 400, body: undefined },
  { name: 'bad kpivalue types', method: 'POST', path: '/api/data/v1.0/visits/1/kpivalue/', options: { json: { kpi: 'osa', value: [], category: 1.2 } }, status: 400, body: { kpi: ['A valid integer is required.'], value: ['A valid number is required.'], category: ['A valid integer is required.'] } },
  { name: 'bad visit date', method: 'PATCH', path: '/api/v1.5/visits/nope/', options: { json: { started_date: '32/13/2026' } }, status: 400, body: undefined },
];

describe('bad input', () => {
  it.each(cases)('$name -> $status', async (c) => {
    const before = t.snapshot();
    const res = await t.call(c.method, c.path, c.options);
    expect(res.status, res.text.slice(0, 300)).toBe(c.status);
    expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
    expect(res.text).not.toMatch(/<html|at .*\.(js|ts):\d+/i);
    if (c.body !== undefined) expect(res.body).toEqual(c.body);
    else if (c.status >= 400) expect(typeof res.body).toBe('object');
    if (c.status >= 400) expect(t.snapshot()).toEqual(before);
  });

  it('405 lists the allowed methods', async () => {
    const res = await t.call('POST', '/api/v1.5/sku/s1/', { json: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS, PATCH, PUT');
  });

  it('a transaction that fails half-way leaves nothing behind', async () => {
    const before = t.snapshot();
    // The planogram is created first inside the import's transaction, then its record fails.
    const res = await t.post('/api/app/v1/import/', { planograms: [{ id: 'p-new', name: 'New', records: [{ sku: 'missing', rack_index: 0, shelf_index: 0, product_index: 0 }] }] });
    expect(res.status).toBe(400);
    expect(t.snapshot()).toEqual(before);
  });
});
