// One record of every resource the API serves, for the tests that call every operation of the served
// OpenAPI description (openapi-contract, fuzz): a master-data import, a visit, an upload used as a SKU
// reference image, and a scene recognised from it.
import type { ApiResponse, TestServer } from './harness.js';

export interface SeededIds {
  upload: string;
  /** The upload's capability token (its content URL). */
  token: string;
  skuImage: string;
  scene: string;
  report: string;
}

function ok(r: ApiResponse, what: string) {
  if (r.status >= 300) throw new Error(`${what} -> ${r.status} ${r.text}`);
  return r.body;
}

export async function seedEveryResource(t: TestServer, png: Buffer): Promise<SeededIds> {
  ok(await t.post('/api/app/v1/import/', {
    brands: [{ id: 'b1', name: 'Brand' }],
    categories: [{ id: 'c1', name: 'Category' }],
    manufacturers: [{ id: 'm1', name: 'Maker' }],
    skus: [{ id: 's1', name: 'Cola', brand: 'b1', category: 'c1', manufacturer: 'm1' }],
    displays: [{ id: 'd1', name: 'Display' }],
    planograms: [{ id: 'p1', name: 'Planogram', display: 'd1', records: [{ id: 'pr1', sku: 's1', rack_index: 0, shelf_index: 0, product_index: 0 }] }],
    mhls: [{ id: 'mh1', name: 'MHL', display: 'd1', records: [{ id: 'mr1', sku: 's1' }] }],
    tasks: [{ name: 'Task' }],
    kpis: [{ cid: 'kpi-1', name: 'KPI' }],
    price_list: [{ id: 'price1', sku: 's1', price: '1.99', currency: 'EUR', valid_from: '2026-01-01' }],
  }), 'import');
  ok(await t.post('/api/v1.5/visits/', { id: 'v1', name: 'Visit' }), 'visit');
  const form = new FormData();
  form.append('datafile', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'ref.png');
  const upload = ok(await t.call('POST', '/api/v1.5/uploads/', { multipart: form }), 'upload');
  const skuImage = ok(await t.post('/api/v1.5/sku/s1/images/', { image: upload.id }), 'sku image').id;
  const recognized = ok(await t.post('/api/v1.5/recognize/', { images: [upload.id], visit: 'v1', report_types: ['FACING_COUNT'], metadata: { agent_id: 'agent-1' } }), 'recognize');
  return {
    upload: upload.id,
    token: new URL(upload.url).pathname.split('/').filter(Boolean).at(-1)!,
    skuImage,
    scene: recognized.scene,
    report: recognized.reports.FACING_COUNT,
  };
}

export { ok as expectOk };
