// PRICE_TAGS and PRICE_COMPLIANCE through the real API: a photo recognised by the real models through
// /recognize (no tag on it: every SKU "no_tag"), then the scene's stored analysis given price tags of
// known readings and links (what the tag reader stores: recognition/analysis.ts, PriceTagFound), the
// reports built again from it and checked against hand-computed statuses, the visit's KPI, and a
// supervisor's corrections of a price and a link changing the reports.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../api/harness.js';
import type { PriceTagFound, ProductFound, SceneAnalysis } from '../../main/server/recognition/analysis.js';
import { recomputeReports } from '../../main/server/scenes/recompute-reports.js';
import { now } from '../../main/server/storage/ids.js';
import { write } from '../../main/server/storage/transaction.js';
import { upload, waitForReports } from './helpers.js';

// The webhook's receiver is on loopback: allowed explicitly, as a local integration would.
process.env.SHELF_AUDIT_ALLOW_PRIVATE_URLS = '1';

const TYPES = ['FACING_COUNT', 'PRICE_TAGS', 'PRICE_COMPLIANCE'];
const delivered: any[] = [];
let receiver: http.Server;
let hook: string;
let t: TestServer;
let created: any;
let photo: any;

const product = (x: number, sku: string | null, position: number): ProductFound => ({
  x1: x, y1: 100, x2: x + 80, y2: 300, score: 0.9, sku_id: sku, sku_score: 0.9, rack_index: 0, shelf_index: 0, position,
});
const read = (cents: number, currency: string | null) => ({ status: 'read' as const, price: { hundredths: cents, currency }, promotion: null, unitPrice: null });
const tag = (x: number, text: string, reading: PriceTagFound['reading'], product_index: number | null, sku_id: string | null): PriceTagFound => ({
  x1: x, y1: 310, x2: x + 60, y2: 340, score: 0.8, text, reading, read_score: 0.9, ean: null, product_index, sku_id, shelf_index: product_index === null ? null : 0,
});

/** A shelf of a, a, b, c, d, e with tags under a (1.99 €), b (2.50), c (unreadable), and one under nothing. */
function analysisOf(image: string, width: number, height: number): SceneAnalysis {
  const products = [product(0, 'sku-a', 0), product(90, 'sku-a', 1), product(180, 'sku-b', 2), product(270, 'sku-c', 3), product(360, 'sku-d', 4), product(450, 'sku-e', 5)];
  const price_tags = [
    tag(10, '1,99 €', read(199, 'EUR'), 0, 'sku-a'),
    tag(190, '2.50', read(250, null), 2, 'sku-b'),
    tag(280, '2 99', { status: 'unreadable', reason: '"299" has no decimal mark', promotion: null, unitPrice: null }, 3, 'sku-c'),
    tag(560, '0.99', read(99, null), null, null),
  ];
  return { images: [{ image, width, height, products, shelves: [{ x1: 0, y1: 100, x2: 530, y2: 300 }], price_tags }], ms: { decode: 0, detect: 0, identify: 0 } };
}

async function rebuild(): Promise<Record<string, any>> {
  const db = t.server.app.db;
  const ids = await write(db, (ctx) => recomputeReports(ctx, created.scene, created.visit, now()));
  t.server.app.recognitionWorker?.notify();
  const done = await waitForReports(t, Object.values(ids));
  return Object.fromEntries(Object.entries(ids).map(([type, id]) => [type, done[id]]));
}

const statuses = (body: any) => Object.fromEntries(body.skus.map((s: any) => [s.sku_id, s.status]));

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      delivered.push(JSON.parse(body));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  t = await startTestServer();
  for (const id of ['sku-a', 'sku-b', 'sku-c', 'sku-d', 'sku-e']) expect((await t.post('/api/v1.5/sku/', { id, name: `Product ${id}` })).status).toBe(201);
  const prices = [
    { sku: 'sku-a', price: '1.89', currency: 'EUR', valid_from: '2026-01-01' },
    // The visit's shop has its own price for a: it applies, not the general one.
    { sku: 'sku-a', price: '1.99', currency: 'EUR', shop: 'shop-1', valid_from: '2026-03-01', valid_to: '2026-03-31' },
    { sku: 'sku-b', price: '2.49', currency: 'EUR', valid_from: '2026-01-01' },
    { sku: 'sku-c', price: '3.00', currency: 'EUR', valid_from: '2026-01-01' },
    { sku: 'sku-d', price: '0.89', currency: 'EUR', valid_from: '2026-01-01' },
    // Not valid on the visit's day.
    { sku: 'sku-e', price: '5.00', currency: 'EUR', valid_from: '2026-04-01' },
  ];
  for (const p of prices) expect((await t.post('/api/app/v1/prices/', p)).status).toBe(201);
  expect((await t.post('/api/v1.5/visits/', { id: 'visit-prices', shop: 'shop-1', started_date: '2026-03-10T09:30:00Z' })).status).toBe(201);
  const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 200, g: 200, b: 190 } } }).jpeg().toBuffer();
  photo = await upload(t, jpeg, 'plain.jpg');
}, 60_000);
afterAll(async () => {
  await t?.close();
  await new Promise((r) => receiver?.close(r));
});

/** The report bodies of a type the webhook has received so far. */
const deliveredOf = (type: string) => delivered.flatMap((d) => Object.values(d.reports as Record<string, any>)).filter((r) => r.report_type === type);

describe('price reports', () => {
  it('builds both reports through /recognize: a photo without tags has none, and no SKU is checked', async () => {
    const res = await t.post('/api/v1.5/recognize/', { images: [photo.id], visit: 'visit-prices', report_types: TYPES, webhook: hook });
    expect(res.status, res.text).toBe(201);
    created = res.body;
    const done = await waitForReports(t, Object.values(created.reports));
    const tags = done[created.reports.PRICE_TAGS];
    expect(tags.status).toBe('READY');
    expect(tags.json).toEqual([{ image: photo.id, width: 640, height: 480, tags: [] }]);
    const compliance = done[created.reports.PRICE_COMPLIANCE];
    expect(compliance.status).toBe('READY');
    expect(compliance.json).toMatchObject({ shop: 'shop-1', day: '2026-03-10', unlinked_tags: [] });
    for (const s of compliance.json.skus) expect(s.status === 'no_tag' || s.status === 'no_expected_price').toBe(true);
    // No SKU identified on the plain photo: nothing is checked, so no figure and no KPI value.
    expect(compliance.json).toMatchObject({ skus: [], checked: 0, compliance: null });
    const kpi = await t.server.app.db.selectFrom('kpi_values').select('value').where('visit_id', '=', created.visit).where('kpi_id', '=', 'shelf-audit:price-compliance').executeTakeFirst();
    expect(kpi).toBeUndefined();
  }, 120_000);

  it('reads every tag and every SKU of the shelf from the stored analysis: ok, wrong price, unreadable, no tag, unlisted', async () => {
    await t.server.app.db.updateTable('scenes').set({ analysis: JSON.stringify(analysisOf(photo.id, 640, 480)) }).where('id', '=', created.scene).execute();
    const r = await rebuild();
    const tags = r.PRICE_TAGS.json[0].tags;
    expect(tags).toHaveLength(4);
    expect(tags[0]).toMatchObject({ index: 0, x1: 10, y1: 310, x2: 70, y2: 340, text: '1,99 €', status: 'read', price: '1.99', currency: 'EUR', reason: null, sku_id: 'sku-a', name: 'Product sku-a', product_index: 0, reviewed: false });
    expect(tags[2]).toMatchObject({ status: 'unreadable', price: null, reason: '"299" has no decimal mark', sku_id: 'sku-c' });
    expect(tags[3]).toMatchObject({ price: '0.99', sku_id: null, name: null, product_index: null });
    const c = r.PRICE_COMPLIANCE.json;
    expect(statuses(c)).toEqual({ 'sku-a': 'ok', 'sku-b': 'wrong_price', 'sku-c': 'unreadable', 'sku-d': 'no_tag', 'sku-e': 'no_expected_price' });
    const a = c.skus.find((s: any) => s.sku_id === 'sku-a');
    expect(a).toMatchObject({ name: 'Product sku-a', facings: 2, expected_price: '1.99', expected_currency: 'EUR', found_prices: [{ price: '1.99', currency: 'EUR' }], tags: [{ image: photo.id, index: 0 }] });
    expect(c.skus.find((s: any) => s.sku_id === 'sku-b')).toMatchObject({ expected_price: '2.49', found_prices: [{ price: '2.50', currency: null }] });
    // A tag pricing no product is reported as such, never put on one.
    expect(c.unlinked_tags).toEqual([{ image: photo.id, index: 3, product_index: null, price: '0.99', currency: null, status: 'read', text: '0.99' }]);
    expect(c).toMatchObject({ checked: 4, ok: 1, compliance: 0.25 });
    // The visit's KPI: price compliance, in %.
    const kpi = await t.server.app.db.selectFrom('kpi_values').select('value').where('visit_id', '=', created.visit).where('kpi_id', '=', 'shelf-audit:price-compliance').executeTakeFirst();
    expect(kpi?.value).toBe(25);
  }, 120_000);

  it("a reviewer's corrections of a price and a link change the reports; stale versions and bad corrections change nothing", async () => {
    const path = `/api/v1.5/scenes/${created.scene}/price_tags/`;
    const read0 = await t.get(path);
    expect(read0.status, read0.text).toBe(200);
    expect(read0.body.images[0]).toMatchObject({ image: photo.id, version: 0, corrections: [] });
    expect(read0.body.images[0].tags.map((x: any) => x.price)).toEqual(['1.99', '2.50', null, '0.99']);
    // The reports rebuilt above are still being delivered to the webhook in the background: the
    // snapshot is taken once they are, or it would change under the refused requests by itself.
    const pending = async () => (await t.server.app.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').execute()).length;
    await expect.poll(pending, { timeout: 30_000 }).toBe(0);
    const before = t.snapshot();
    const bad = await t.put(path, { images: [{ image: photo.id, version: 0, tags: [{ index: 9, price: '1.00' }, { index: 1, price: '-2' }, { index: 2, sku_id: 'ghost' }] }] });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body)).toContain('images');
    const unknown = await t.put(path, { images: [{ image: photo.id, version: 0, tags: [{ index: 9, price: '1.00' }, { index: 2, sku_id: 'ghost' }] }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      'images[0].tags[0].index': ['The photo has 4 price tags: no tag 9.'],
      'images[0].tags[1].sku_id': ['Invalid pk "ghost" - object does not exist.'],
    });
    expect(t.snapshot()).toEqual(before);
    // b's tag really says 2.49; the loose tag is d's; c's tag is marked unreadable on purpose (as it was).
    const saved = await t.put(path, { images: [{ image: photo.id, version: 0, tags: [{ index: 1, price: '2.49' }, { index: 3, sku_id: 'sku-d' }] }] });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.images[0].version).toBe(1);
    expect(saved.body.images[0].tags[1]).toMatchObject({ price: '2.49', reviewed: true, read_score: 1 });
    expect(saved.body.images[0].tags[3]).toMatchObject({ sku_id: 'sku-d', product_index: null, reviewed: true });
    expect(Object.keys(saved.body.reports).sort()).toEqual(TYPES.slice().sort());
    const stale = await t.put(path, { images: [{ image: photo.id, version: 0, tags: [] }] });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ image: photo.id, version: 1 });
    t.server.app.recognitionWorker?.notify();
    const done = await waitForReports(t, Object.values(saved.body.reports));
    const compliance = done[saved.body.reports.PRICE_COMPLIANCE];
    expect(compliance.previous_report).not.toBeNull();
    expect(statuses(compliance.json)).toEqual({ 'sku-a': 'ok', 'sku-b': 'ok', 'sku-c': 'unreadable', 'sku-d': 'wrong_price', 'sku-e': 'no_expected_price' });
    expect(compliance.json.unlinked_tags).toEqual([]);
    expect(compliance.json.skus.find((s: any) => s.sku_id === 'sku-d').found_prices).toEqual([{ price: '0.99', currency: null }]);
    expect(done[saved.body.reports.PRICE_TAGS].json[0].tags[1]).toMatchObject({ price: '2.49', reviewed: true });
    // Marked unreadable, and unlinked: the SKU has no readable tag, the tag prices nothing.
    const again = await t.put(path, { images: [{ image: photo.id, version: 1, tags: [{ index: 0, price: null }, { index: 3, sku_id: null }] }] });
    expect(again.status, again.text).toBe(200);
    t.server.app.recognitionWorker?.notify();
    const third = (await waitForReports(t, [again.body.reports.PRICE_COMPLIANCE]))[again.body.reports.PRICE_COMPLIANCE].json;
    // The corrections replace the photo's earlier ones: b's tag reads 2.50 again.
    expect(statuses(third)).toEqual({ 'sku-a': 'unreadable', 'sku-b': 'wrong_price', 'sku-c': 'unreadable', 'sku-d': 'no_tag', 'sku-e': 'no_expected_price' });
    expect(third.unlinked_tags).toHaveLength(1);
  }, 120_000);

  it('a corrected facing carries its tag: relabelled by the box review, the tag prices the new SKU', async () => {
    const ann = (await t.get(`/api/v1.5/scenes/${created.scene}/annotations/`)).body.images[0];
    // Product 2 (the b the second tag prices) is really a d.
    const boxes = ann.boxes.map((b: any) => (b.id === 'm2' ? { ...b, sku_id: 'sku-d' } : b));
    const res = await t.put(`/api/v1.5/scenes/${created.scene}/annotations/`, { images: [{ image: photo.id, version: 0, boxes }] });
    expect(res.status, res.text).toBe(200);
    t.server.app.recognitionWorker?.notify();
    const done = await waitForReports(t, [res.body.reports.PRICE_COMPLIANCE, res.body.reports.PRICE_TAGS]);
    const tags = done[res.body.reports.PRICE_TAGS].json[0].tags;
    expect(tags[1]).toMatchObject({ sku_id: 'sku-d', price: '2.50' });
    const c = done[res.body.reports.PRICE_COMPLIANCE].json;
    // d: its tag says 2.50, the list 0.89; b: no longer on the shelf.
    expect(statuses(c)).toEqual({ 'sku-a': 'unreadable', 'sku-c': 'unreadable', 'sku-d': 'wrong_price', 'sku-e': 'no_expected_price' });
  }, 120_000);

  it('force_update builds the price reports again from a new analysis, delivered to the webhook; corrections follow their tags', async () => {
    const id = created.reports.PRICE_COMPLIANCE;
    // Every price report built so far reached the webhook, each READY with its body.
    await expect.poll(() => deliveredOf('PRICE_COMPLIANCE').length, { timeout: 20_000 }).toBeGreaterThanOrEqual(5);
    expect(deliveredOf('PRICE_COMPLIANCE').every((r) => r.status === 'READY' && Array.isArray(r.json.skus) && 'compliance' in r.json)).toBe(true);
    const forced = await t.post('/api/v1.5/reports/force_update/', { reports: [id] });
    expect(forced.status, forced.text).toBe(200);
    const done = (await waitForReports(t, [id]))[id];
    // Detected again: the photo has no tags of its own.
    expect(done.status).toBe('READY');
    expect(done.json.unlinked_tags).toEqual([]);
    expect(done.json.skus.every((s: any) => s.found_prices.length === 0)).toBe(true);
    await expect.poll(() => deliveredOf('PRICE_COMPLIANCE').filter((r) => r.id === id).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    // Analysed again with the same tags in another order: each correction stays on the tag it was made on
    // (the one at x 10 marked unreadable, the one at x 560 linked to nothing), not on its old index.
    const again = analysisOf(photo.id, 640, 480);
    again.images[0].price_tags!.reverse();
    await t.server.app.db.updateTable('scenes').set({ analysis: JSON.stringify(again) }).where('id', '=', created.scene).execute();
    const tags = (await rebuild()).PRICE_TAGS.json[0].tags;
    expect(tags.map((x: any) => [x.x1, x.price, x.reviewed])).toEqual([[560, '0.99', true], [280, null, false], [190, '2.50', false], [10, null, true]]);
    expect(tags[0].sku_id).toBeNull();
  }, 120_000);
  it('looks for tags only in a scene that asks for a price report (the stage costs seconds a photo)', async () => {
    const plain = await t.post('/api/v1.5/recognize/', { images: [photo.id], visit: 'visit-prices', report_types: ['FACING_COUNT'] });
    expect(plain.status, plain.text).toBe(201);
    await waitForReports(t, Object.values(plain.body.reports));
    const stored = async (scene: string): Promise<SceneAnalysis> => {
      const row = await t.server.app.db.selectFrom('scenes').select('analysis').where('id', '=', scene).executeTakeFirstOrThrow();
      return JSON.parse(row.analysis!) as SceneAnalysis;
    };
    expect((await stored(created.scene)).images[0].price_tags).toBeInstanceOf(Array);
    expect((await stored(plain.body.scene)).images[0]).not.toHaveProperty('price_tags');
  }, 120_000);
});
