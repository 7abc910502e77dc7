// The OpenAPI description is a contract a generated client can rely on: every operation of the served
// /api/schema/ document is called on a real server with a real request (an operation that takes a
// body and has none listed here fails the test), it must succeed, its status must be one the document
// lists, and its body must validate (Ajv, JSON Schema 2020-12, as OpenAPI 3.1 uses) against the schema
// documented for that status. Multipart bodies are sent as the document names their parts (a file
// sent as `image` to the SKU reference-image upload must be read).
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceFiles } from '../recognition/fixtures.js';
import { waitForReports } from '../recognition/helpers.js';
import { DEFAULT_THRESHOLDS } from '../../main/server/domain/photo-checks.js';
import { expectOk, seedEveryResource } from './seed-every-resource.js';
import { startTestServer, type TestServer } from './harness.js';

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  op: Schema;
}

// upload_by_url fetches from a local image server: allowed explicitly, as a local integration would.
process.env.SHELF_AUDIT_ALLOW_PRIVATE_URLS = '1';

let t: TestServer;
let doc: Schema;
/** Serves the test image to upload_by_url. */
let images: http.Server;
let imageUrl: string;
const ids: Record<string, string> = {};
const png = readFileSync(referenceFiles('fanta_pet')[0]);

beforeAll(async () => {
  images = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
  await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
  imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/shelf.png`;
  t = await startTestServer();
  const seeded = await seedEveryResource(t, png);
  ids.upload = seeded.upload;
  ids.token = seeded.token;
  ids.skuImage = seeded.skuImage;
  ids.scene = seeded.scene;
  ids.report = seeded.report;
  const ok = expectOk;
  const upload = { id: seeded.upload };
  // A scene of its own for the review routes, recognised before they are called (force_update, called
  // on the first scene, drops that one's analysis again).
  const forReview = ok(await t.post('/api/v1.5/recognize/', { images: [upload.id], report_types: ['FACING_COUNT'] }), 'recognize for review');
  ids.reviewScene = forReview.scene;
  ids.reviewVisit = forReview.visit;
  await waitForReports(t, [forReview.reports.FACING_COUNT]);
  ids.key = ok(await t.post('/api/app/v1/keys/', { name: 'to revoke' }), 'key').id;
  // A device, for the device endpoints (push and pull answer a device key, not an API key).
  ids.deviceKey = ok(await t.post('/api/app/v1/devices/', { name: 'contract device', role: 'auditor' }), 'device').key;
  doc = (await t.get('/api/schema/')).body;
}, 120_000);
afterAll(async () => {
  await t?.close();
  await new Promise((r) => images?.close(r));
});

/** Path parameters: the records seeded above (Data API paths take per-instance integer ids). */
function fill(path: string): string {
  const v15: Record<string, string> = {
    brands: 'b1', categories: 'c1', manufacturers: 'm1', sku: 's1', displays: 'd1', planograms: 'p1', planogram_records: 'pr1',
    mhl: 'mh1', mhl_record: 'mr1', visits: 'v1', uploads: ids.upload, reports: ids.report, keys: ids.key, agents: 'agent-1',
    scenes: ids.reviewScene, prices: 'price1',
  };
  const numeric = /^\/api\/data\/v1\.[01]\//.test(path);
  return path.replace(/\{(\w+)\}/g, (_, name: string, offset: number) => {
    if (name === 'token') return ids.token;
    if (name === 'image_id') return ids.skuImage;
    if (numeric) return '1';
    const segment = path.slice(0, offset).split('/').filter(Boolean).at(-1)!;
    return encodeURIComponent(v15[segment] ?? 'no-such-record');
  });
}

const catalog = { create: { name: 'New' }, update: { name: 'Renamed' } };
/** Request bodies known to succeed, by "METHOD /path" (the v1.5 by-id paths also serve the data/v1.5 ones). */
const bodies: Record<string, unknown> = {
  'POST /api/v1.5/brands/': catalog.create,
  'POST /api/v1.5/categories/': catalog.create,
  'POST /api/v1.5/manufacturers/': catalog.create,
  'POST /api/v1.5/sku/': { name: 'New SKU', brand: 'b1' },
  'POST /api/v1.5/displays/': { name: 'Display 2', planogram: 'p1' },
  'POST /api/v1.5/planograms/': { name: 'Planogram 2', display: 'd1' },
  'POST /api/v1.5/planogram_records/': { planogram: 'p1', sku: 's1', rack_index: 0, shelf_index: 0, product_index: 1 },
  'POST /api/v1.5/mhl/': { name: 'MHL 2', display: 'd1' },
  'POST /api/v1.5/mhl_record/': { musthavelist: 'mh1', sku: 's1' },
  'POST /api/v1.5/visits/': { name: 'Visit 2' },
  'POST /api/data/v1.0/visits/{id}/kpivalue/': { kpi: 1, category: 1, value: 42 },
  'POST /api/data/v1.0/visits/{id}/ack/': {},
  'POST /api/app/v1/import/': { brands: [{ id: 'b9', name: 'Imported' }] },
  'POST /api/app/v1/keys/': { name: 'contract' },
  'POST /api/v1.5/recognize/': { images: ['<upload>'], report_types: ['FACING_COUNT'] },
  'POST /api/v1.5/reports/force_update/': { reports: ['<report>'] },
  'PUT /api/v1.5/scenes/{id}/annotations/': { images: [{ image: '<upload>', version: 0, boxes: [] }] },
  'PUT /api/v1.5/scenes/{id}/price_tags/': { images: [{ image: '<upload>', version: 0, tags: [] }] },
  'POST /api/app/v1/prices/': { sku: 's1', price: '0.99', currency: 'USD', valid_from: '2026-01-01' },
  'POST /api/v1.5/recognition_error/': { sku_gid: 's1', scene: '<scene>', message: 'not a cola' },
  'POST /api/v1.5/oos_reason/': { sku_gid: 's1', scene: '<scene>', reason: 'Delisted' },
  'POST /api/v1.5/uploads/upload_by_url/': { url: '<image url>' },
  'POST /api/v1.5/uploads_by_url/': { url: '<image url>' },
  'POST /api/v1.5/scenes/{id}/suggestions/': { image: '<upload>', x: 1, y: 2, w: 30, h: 40 },
  'POST /api/v1.5/uploads/overlap/': { previous: '<upload>', next: '<upload>' },
  'POST /api/app/v1/devices/': { name: 'contract laptop', role: 'auditor' },
  // One visit of the device's own, as a laptop pushes it (client_time is set when sent).
  'POST /api/app/v1/sync/push/': { last: 1, changes: [{ n: 1, entity: 'visit', id: 'pushed-visit', op: 'upsert', row: { id: 'pushed-visit', shop: 'pushed', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' } }] },
  'PUT /api/app/v1/sync/settings/': { central_url: null },
  'PUT /api/app/v1/photo_quality/settings/': DEFAULT_THRESHOLDS,
  'PATCH /api/app/v1/photo_quality/settings/': { min_sharpness: DEFAULT_THRESHOLDS.min_sharpness },
};
const updates: Record<string, unknown> = {
  brands: catalog.update, categories: catalog.update, manufacturers: catalog.update, sku: { name: 'Cola 0.5' },
  displays: { name: 'Display', musthavelist: 'mh1' }, planograms: { name: 'Planogram' }, planogram_records: { facing_x: 2 },
  mhl: { name: 'MHL' }, mhl_record: { name: 'Cola or alike' }, visits: { name: 'Visit' }, prices: { price: '2.05' },
};
/** Query strings an operation needs to succeed (required query parameters), by "METHOD /path". */
const queries: Record<string, () => string> = {
  'GET /api/app/v1/photo_quality/': () => `?visit=${encodeURIComponent(ids.reviewVisit)}`,
  'GET /api/app/v1/photo_quality/marks/': () => `?visit__in=${encodeURIComponent(ids.reviewVisit)},v1`,
  'GET /api/app/v1/photo_quality/visits/': () => '?mark=retake',
  ...Object.fromEntries(['kpis', 'stores', 'missing', 'share', 'agents', 'review_queue', 'visits'].map((p) => [`GET /api/app/v1/overview/${p}/`, () => '?date_from=2026-01-01&date_to=2026-12-31'])),
  'GET /api/app/v1/overview/export/': () => '?date_from=2026-01-01&date_to=2026-12-31&format=xlsx',
};
/** Multipart bodies: the file parts named as the document names them. */
const multipart: Record<string, () => FormData> = {
  'POST /api/v1.5/uploads/': () => {
    const form = new FormData();
    form.append('datafile', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'shelf.png');
    return form;
  },
  'POST /api/v1.5/sku/{id}/images/': () => {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'ref.png');
    form.append('crop', JSON.stringify({ x: 1, y: 2, w: 30, h: 40 }));
    return form;
  },
};

function bodyFor(method: string, path: string): unknown {
  const key = `${method} ${path.replace('/api/data/v1.5/', '/api/v1.5/')}`;
  let body: unknown = bodies[key];
  if (body === undefined && (method === 'PUT' || method === 'PATCH')) body = updates[path.split('/').filter(Boolean).at(-2)!];
  if (body === undefined) return undefined;
  return JSON.parse(JSON.stringify(body).replaceAll('<upload>', ids.upload).replace('<report>', ids.report).replace('<scene>', ids.scene).replace('<image url>', imageUrl));
}

/** Push and pull answer devices: a device key, the protocol header and the device's clock. */
const deviceProtocol = (path: string) => path === '/api/app/v1/sync/push/' || path === '/api/app/v1/sync/pull/';
const deviceQuery = () => `?cursor=0&client_time=${encodeURIComponent(new Date().toISOString())}`;

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(item)) out.push({ method: method.toUpperCase(), path, op });
  }
  // Deletes last, so every other call finds its records.
  return out.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
}

describe('the OpenAPI description against the real server', () => {
  it('documents multipart file parts as the server reads them', () => {
    const content = doc.paths['/api/v1.5/sku/{id}/images/'].post.requestBody.content;
    expect(content['multipart/form-data'].schema.properties.image).toMatchObject({ type: 'string', contentMediaType: 'application/octet-stream' });
    expect(content['application/json'].schema.properties.image.type).toBe('string');
    expect(doc.paths['/api/v1.5/uploads/'].post.requestBody.content['multipart/form-data'].schema.properties.datafile.contentMediaType).toBe(
      'application/octet-stream',
    );
    expect(doc.paths['/api/app/v1/import/'].post.requestBody.content['multipart/form-data'].schema.properties.file).toBeDefined();
  });

  it('accepts a reference image sent as the `image` file part, with its crop (and `datafile` still)', async () => {
    const form = multipart['POST /api/v1.5/sku/{id}/images/']();
    const res = await t.call('POST', '/api/v1.5/sku/s1/images/', { multipart: form });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ sku: 's1', crop: { x: 1, y: 2, w: 30, h: 40 } });
    const old = new FormData();
    old.append('datafile', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'ref.png');
    expect((await t.call('POST', '/api/v1.5/sku/s1/images/', { multipart: old })).status).toBe(201);
    const bad = new FormData();
    bad.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'ref.png');
    bad.append('crop', '{"x": 1');
    expect((await t.call('POST', '/api/v1.5/sku/s1/images/', { multipart: bad })).body).toEqual({ crop: ['Value must be valid JSON.'] });
  });

  it('answers every operation with a documented status and a body that validates against its documented schema', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    // A CommonJS module: its default export is the plugin's module object under NodeNext.
    (formats as unknown as { default: typeof formats.default }).default(ajv);
    const failures: string[] = [];
    let called = 0;
    const ops = operations();
    expect(ops.length).toBeGreaterThan(100);
    for (const { method, path, op } of ops) {
      let url = fill(path);
      const collection = /^\/api\/(?:data\/)?v1\.5\/(\w+)\/\{id\}\/$/.exec(path)?.[1];
      if (method === 'DELETE' && collection && bodies[`POST /api/v1.5/${collection}/`]) {
        // Each delete removes a record made for it, so the seeded ones stay for the other calls.
        const made = await t.post(`/api/v1.5/${collection}/`, bodyFor('POST', `/api/v1.5/${collection}/`));
        url = path.replace('{id}', encodeURIComponent(made.body.id));
      }
      if (method === 'DELETE' && path === '/api/app/v1/devices/{id}/') {
        const made = await t.post('/api/app/v1/devices/', { name: 'revoked by the contract test', role: 'auditor' });
        url = path.replace('{id}', encodeURIComponent(made.body.id));
      }
      const key = `${method} ${path}`;
      const body = multipart[key] ? undefined : bodyFor(method, path);
      if (op.requestBody && !multipart[key] && body === undefined) {
        failures.push(`${key}: takes a body and none is known here (add a real one to \`bodies\`)`);
        continue;
      }
      const headers: Record<string, string> = deviceProtocol(path) ? { authorization: `Token ${ids.deviceKey}`, 'x-sync-protocol': '1' } : {};
      if (path === '/api/app/v1/sync/pull/') url += deviceQuery();
      if (path === '/api/app/v1/sync/push/') (body as Record<string, unknown>).client_time = new Date().toISOString();
      url += queries[key]?.() ?? '';
      const res = multipart[key]
        ? await t.call(method, url, { multipart: multipart[key](), headers })
        : op.requestBody
          ? await t.call(method, url, { json: body, headers })
          : await t.call(method, url, { headers });
      called++;
      const documented = op.responses?.[String(res.status)];
      if (!documented) {
        failures.push(`${key} -> ${res.status} is not documented (${Object.keys(op.responses ?? {}).join(', ')}): ${res.text.slice(0, 200)}`);
        continue;
      }
      // Every request here is a real one: each must succeed.
      if (res.status >= 300) failures.push(`${key} -> ${res.status}: ${res.text.slice(0, 200)}`);
      const type = res.headers.get('content-type') ?? '';
      const schema = documented.content?.['application/json']?.schema;
      if (!type.startsWith('application/json')) {
        if (schema) failures.push(`${key} -> ${res.status} answered ${type}, documented as JSON`);
        continue;
      }
      if (!schema) {
        failures.push(`${key} -> ${res.status} answered JSON with no documented schema`);
        continue;
      }
      const validate = ajv.compile(schema);
      if (!validate(res.body)) failures.push(`${key} -> ${res.status}: ${ajv.errorsText(validate.errors)} in ${res.text.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
    expect(called).toBe(ops.length);
  }, 120_000);
});
