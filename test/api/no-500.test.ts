// "No input a client can send yields a 500": every registered route (enumerated from the server, so
// new routes are covered without editing this file), called with a valid token and a handful of
// hostile inputs, answers JSON with a status below 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type CallOptions, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.post('/api/app/v1/import/', { brands: [{ id: '1', name: 'One' }], skus: [{ id: '1', name: 'One', brand: '1' }] });
});
afterAll(async () => {
  await t?.close();
});

const inputs: Array<[string, CallOptions]> = [
  ['no body', {}],
  ['empty object', { json: {} }],
  ['wrong types everywhere', { json: { id: 1, name: [], images: 'x', display: { a: 1 }, limit: -1, sku: null, reports: 'all', url: 42, kpi: 'x', value: {} } }],
  ['a JSON list', { json: [1, 2, 3] }],
  ['a JSON string', { json: 'hello' }],
  ['a form body', { form: { id: 'x', name: 'y', images: ['a', 'b'], limit: 'z' } }],
  ['broken JSON', { raw: { body: '{"a":', type: 'application/json' } }],
];

function concrete(url: string): string {
  return url.replace(/:[A-Za-z_]+/g, '1').replace(/\*$/, 'x');
}

describe('no 500 on any route', () => {
  it('every route, every hostile input', async () => {
    const routes = t.server.app.routeAuth().filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS');
    // An empty or shrunken list (the enumeration broken) would pass with nothing called.
    expect(routes.length).toBeGreaterThan(100);
    const methods = new Set(routes.map((r) => r.method));
    for (const m of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) expect(methods, m).toContain(m);
    let called = 0;
    const failures: string[] = [];
    for (const r of routes) {
      for (const [label, options] of inputs) {
        const body = r.method === 'GET' || r.method === 'DELETE' ? {} : options;
        const res = await t.call(r.method, concrete(r.url) + '?limit=abc&offset=-1', body);
        called++;
        const json = (res.headers.get('content-type') ?? '').includes('application/json');
        const publicPage = !r.auth; // the docs page and web UI answer HTML by design
        if (res.status >= 500 || (!json && !publicPage && res.status !== 200)) failures.push(`${r.method} ${r.url} (${label}): ${res.status} ${res.text.slice(0, 120)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(called).toBe(routes.length * inputs.length);
  });
});
