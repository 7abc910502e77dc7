// API steps the recognition tests share: upload an image, build a catalog with reference images,
// wait for reports to finish.
import { readFileSync } from 'node:fs';
import type { TestServer } from '../api/harness.js';
import { groceryPackshots, referenceFiles } from './fixtures.js';

export async function upload(t: TestServer, bytes: Buffer, name = 'photo.jpg'): Promise<any> {
  const form = new FormData();
  form.append('datafile', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), name);
  const res = await t.call('POST', '/api/v1.5/uploads/', { multipart: form });
  if (res.status !== 201) throw new Error(`upload -> ${res.status} ${res.text}`);
  return res.body;
}

/** Creates SKU `id` with the given reference images (uploaded, then attached). */
export async function createSku(t: TestServer, id: string, files: string[]): Promise<void> {
  const sku = await t.post('/api/v1.5/sku/', { id, name: id.replace(/_/g, ' ') });
  if (sku.status !== 201) throw new Error(`sku ${id} -> ${sku.status} ${sku.text}`);
  for (const file of files) {
    const up = await upload(t, readFileSync(file));
    const img = await t.post(`/api/v1.5/sku/${id}/images/`, { image: up.id });
    if (img.status !== 201) throw new Error(`sku image ${id} -> ${img.status} ${img.text}`);
  }
}

/** The soft-drink SKUs with their reference crops, plus `distractors` Grocery Store packshot SKUs. */
export async function createCatalog(t: TestServer, products: readonly string[], distractors = 6): Promise<void> {
  for (const p of products) await createSku(t, p, referenceFiles(p));
  for (const g of groceryPackshots(distractors)) await createSku(t, `grocery-${g.name}`, [g.file]);
}

export async function waitForReports(t: TestServer, ids: string[], timeoutMs = 120_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const out: Record<string, any> = {};
    for (const id of ids) out[id] = (await t.get(`/api/v1.5/reports/${id}/`)).body;
    if (Object.values(out).every((r) => r.status !== 'NOT_READY')) return out;
    if (Date.now() > deadline) throw new Error(`reports still NOT_READY: ${JSON.stringify(out)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
