// Auth on every route: the routes are enumerated from the server itself, so a route added without
// auth (or a family forgotten here) fails this test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

// Public by design: health, the API description and docs page, the static web UI, and the images'
// capability URLs (the unguessable token in the path is the credential, so <img> tags can load them).
const PUBLIC = [
  /^\/health$/,
  /^\/api\/schema\/?$/,
  /^\/api\/docs(\/|$)/,
  /^\/\*$/,
  /^\/api\/v1\.5\/uploads\/:id\/content\/:token\/$/,
];
/** Authenticated by a device key (sync/central/device-auth.ts), not an API key. */
const DEVICE = [/^\/api\/app\/v1\/sync\/(push|pull)\/$/];

function concrete(url: string): string {
  return url.replace(/:[A-Za-z_]+/g, '1').replace(/\*$/, 'x');
}

describe('authentication', () => {
  it('every route but the public ones answers 401 without a token, and public ones are the expected few', async () => {
    const routes = t.server.app.routeAuth();
    expect(routes.length).toBeGreaterThan(80);
    const publicRoutes = routes.filter((r) => !r.auth);
    const deviceRoutes = publicRoutes.filter((r) => r.method !== 'HEAD' && DEVICE.some((p) => p.test(r.url)));
    for (const r of publicRoutes) expect(PUBLIC.some((p) => p.test(r.url)) || DEVICE.some((p) => p.test(r.url)), `${r.method} ${r.url} is public`).toBe(true);
    // The sync protocol's routes take a device key instead of an API key: still nothing without one.
    expect(deviceRoutes.map((r) => `${r.method} ${r.url}`).sort()).toEqual(['GET /api/app/v1/sync/pull/', 'POST /api/app/v1/sync/push/']);
    for (const r of deviceRoutes) {
      const res = await t.call(r.method, r.url, { token: null, json: r.method === 'GET' ? undefined : {} });
      expect(res.status, `${r.method} ${r.url}`).toBe(401);
      expect((await t.call(r.method, r.url, { token: API_KEY, json: r.method === 'GET' ? undefined : {} })).status, 'an API key is no device key').toBe(401);
    }
    const authed = routes.filter((r) => r.auth && r.method !== 'HEAD' && r.method !== 'OPTIONS');
    expect(authed.length).toBeGreaterThan(60);
    for (const r of authed) {
      const url = concrete(r.url);
      const res = await t.call(r.method, url, { token: null, json: r.method === 'GET' || r.method === 'DELETE' ? undefined : {} });
      expect(res.status, `${r.method} ${url}`).toBe(401);
      expect(res.body, `${r.method} ${url}`).toEqual({ detail: 'Authentication credentials were not provided.' });
      expect(res.headers.get('www-authenticate')).toBe('Token');
      const wrong = await t.call(r.method, url, { token: 'not-a-key' });
      expect(wrong.status, `${r.method} ${url} wrong key`).toBe(401);
      expect(wrong.body).toEqual({ detail: 'Invalid token.' });
    }
  });

  it('covers the route families of both APIs', () => {
    const urls = new Set(t.server.app.routeAuth().map((r) => r.url));
    const expected = [
      ...['brands', 'categories', 'manufacturers', 'sku', 'displays', 'planograms', 'planogram_records', 'mhl', 'mhl_record', 'visits'].flatMap((f) => [`/api/v1.5/${f}/`, `/api/v1.5/${f}/:id/`]),
      ...['tasks', 'visits', 'categories', 'brands', 'kpi', 'sku'].flatMap((f) => [`/api/data/v1.0/${f}/`, `/api/data/v1.0/${f}/:id/`]),
      '/api/data/v1.0/visits/:id/ack/', '/api/data/v1.0/visits/:id/kpivalue/', '/api/data/v1.0/md_import_status/',
      '/api/app/v1/import/', '/api/app/v1/keys/', '/api/app/v1/keys/:id/', '/api/app/v1/info/',
      '/api/app/v1/agents/', '/api/app/v1/agents/:id/',
    ];
    for (const u of expected) expect(urls.has(u), u).toBe(true);
  });

  it('gives DRF texts for malformed headers and accepts any keyword case', async () => {
    const cases: Array<[string, string]> = [
      ['Token', 'Invalid token header. No credentials provided.'],
      [`Token ${API_KEY} extra`, 'Invalid token header. Token string should not contain spaces.'],
      [`Bearer ${API_KEY}`, 'Authentication credentials were not provided.'],
    ];
    for (const [header, text] of cases) {
      const res = await t.get('/api/v1.5/brands/', { token: null, headers: { authorization: header } });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: text });
    }
    const lower = await t.get('/api/v1.5/brands/', { token: null, headers: { authorization: `token ${API_KEY}` } });
    expect(lower.status).toBe(200);
  });

  it('serves /health, the OpenAPI description and the docs page without a token', async () => {
    const health = await t.get('/health', { token: null });
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    const schema = await t.get('/api/schema/', { token: null });
    expect(schema.status).toBe(200);
    expect(schema.body.openapi).toMatch(/^3\./);
    expect(Object.keys(schema.body.paths)).toContain('/api/v1.5/brands/');
    expect(schema.body.paths['/api/v1.5/brands/'].get.security).toEqual([{ Token: [] }]);
    expect(Object.keys(schema.body.paths['/api/v1.5/brands/'].post.requestBody.content).sort()).toEqual([
      'application/json', 'application/x-www-form-urlencoded', 'multipart/form-data',
    ]);
    expect(schema.body.paths['/api/v1.5/sku/'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['limit', 'offset', 'id__in', 'cid', 'ean13', 'brand', 'category', 'manufacturer', 'search', 'ordering']);
    for (const p of ['/api/data/v1.0/visits/{id}/kpivalue/', '/api/data/v1.0/md_import_status/', '/api/app/v1/import/']) {
      expect(schema.body.paths[p], p).toBeDefined();
    }
    expect(schema.body.paths['/health'].get.security).toBeUndefined();
    const docs = await t.get('/api/docs/', { token: null });
    expect(docs.status).toBe(200);
    expect(docs.text).toContain('<html');
  });
});
