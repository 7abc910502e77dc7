// Supervisors' review through the real API on a really recognised composed shelf: reading a
// scene's boxes with their version, refusing bad corrections without changing anything, saving a
// correction (audit row, new reports recomputed from the corrected boxes and checked against
// hand-computed counts, re-delivered to the webhook, moderation and is_new), two reviewers racing on
// one version, and the training export read back.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../api/harness.js';
import { exportTraining } from '../../main/server/scenes/training-export.js';
import { composeShelf } from './fixtures.js';
import { createCatalog, upload, waitForReports } from './helpers.js';

// The test's webhook receiver listens on loopback: allowed explicitly, as a local integration would.
process.env.SHELF_AUDIT_ALLOW_PRIVATE_URLS = '1';
process.env.SHELF_AUDIT_WEBHOOK_BACKOFF_MS = '300';

const root = path.resolve(import.meta.dirname, '../..');
// Top shelf: 3 Fanta, 2 Sprite; bottom shelf: 2 Coca-Cola.
const LAYOUT: Array<Array<[string, number]>> = [
  [['fanta_pet', 3], ['sprite_pet', 2]],
  [['cocacola_pet', 2]],
];
const TYPES = ['FACING_COUNT', 'REALOGRAM', 'SHARE_OF_SPACE'];

let t: TestServer;
let receiver: http.Server;
let receiverUrl: string;
const delivered: any[] = [];
let photo: { id: string; width: number; height: number };
let created: any;
let firstReports: Record<string, any>;

const annotationsPath = () => `/api/v1.5/scenes/${created.scene}/annotations/`;
const counts = (fc: any[]) => Object.fromEntries(fc.map((r) => [String(r.sku_id), r.count]));

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      delivered.push(JSON.parse(body));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  t = await startTestServer();
  await createCatalog(t, ['fanta_pet', 'sprite_pet', 'cocacola_pet'], 2);
  const shelf = await composeShelf(LAYOUT);
  photo = await upload(t, shelf.jpeg, 'shelf.jpg');
  const res = await t.post('/api/v1.5/recognize/', { images: [photo.id], report_types: TYPES, webhook: receiverUrl });
  expect(res.status, res.text).toBe(201);
  created = res.body;
  firstReports = await waitForReports(t, Object.values(created.reports));
}, 300_000);

afterAll(async () => {
  await t?.close();
  await new Promise((r) => receiver?.close(r));
});

/** The visit as the Data API lists it (its list shows new visits unless asked for is_new=false). */
async function dataVisit(): Promise<any> {
  const found = [];
  for (const isNew of ['true', 'false']) found.push(...(await t.get(`/api/data/v1.0/visits/?cid=${created.visit}&is_new=${isNew}`)).body.results);
  expect(found).toHaveLength(1);
  return found[0];
}

/**
 * The visit's overview facts as projected (domain/overview/projection.ts), read from the tables: no
 * overview read has run in this file, so they are what the writing transactions projected.
 */
async function overviewFacts() {
  const db = t.server.app.db;
  const visit = await db.selectFrom('overview_visits').select(['review', 'photos', 'facings', 'unknown_facings', 'unjoined']).where('visit_id', '=', created.visit).executeTakeFirst();
  const products = await db.selectFrom('overview_visit_products').select(['sku_id', 'facings']).where('visit_id', '=', created.visit).where('display_id', '=', '*').where('facings', '>', 0).execute();
  return { visit, products: Object.fromEntries(products.map((p) => [p.sku_id, p.facings])) };
}

async function state() {
  const ann = await t.get(annotationsPath());
  const corrections = await t.get(`/api/v1.5/scenes/${created.scene}/corrections/`);
  const reports = await t.get(`/api/v1.5/reports/?scene=${created.scene}`);
  return { version: ann.body.images[0].version, boxes: ann.body.images[0].boxes, corrections: corrections.body.count, reports: reports.body.count };
}

describe('review of a recognised scene', () => {
  let model: any[];

  it('reads the model boxes per photo at version 0, in the REALOGRAM convention; the visit is unreviewed', async () => {
    expect(counts(firstReports[created.reports.FACING_COUNT].json)).toEqual({ fanta_pet: 3, sprite_pet: 2, cocacola_pet: 2 });
    const res = await t.get(annotationsPath());
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ scene: created.scene, visit: created.visit, reviewed: false });
    expect(res.body.images).toHaveLength(1);
    const img = res.body.images[0];
    expect(img).toMatchObject({ image: photo.id, width: photo.width, height: photo.height, version: 0, reviewer: null, reviewed_date: null });
    expect(img.boxes).toHaveLength(7);
    expect(img.boxes.every((b: any) => b.source === 'model' && b.unknown_on_purpose === false)).toBe(true);
    // Same boxes as the REALOGRAM report (centre and size).
    const realogram = firstReports[created.reports.REALOGRAM].json[0].annotations;
    for (const b of img.boxes) {
      expect(realogram.some((a: any) => Math.abs(a.x - b.x) < 0.1 && Math.abs(a.y - b.y) < 0.1 && Math.abs(a.w - b.w) < 0.1 && a.sku_id === b.sku_id)).toBe(true);
    }
    model = img.boxes;
    expect((await t.get(`/api/v1.5/visits/${created.visit}/`)).body.moderation).toBe('unreviewed');
    // The recognition's own transactions projected the visit into the overview.
    expect(await overviewFacts()).toEqual({
      visit: { review: 'unreviewed', photos: 1, facings: 7, unknown_facings: 0, unjoined: 0 },
      products: { fanta_pet: 3, sprite_pet: 2, cocacola_pet: 2 },
    });
  });

  it("offers the identifier's best SKUs for a model box, and for a box drawn anywhere on demand", async () => {
    const ann = (await t.get(annotationsPath())).body;
    const boxes = ann.images[0].boxes;
    const identified = boxes.filter((b: any) => b.sku_id !== null);
    expect(identified.length).toBeGreaterThan(0);
    for (const b of identified) {
      expect(b.suggestions.length).toBeGreaterThan(0);
      expect(b.suggestions.length).toBeLessThanOrEqual(5);
      // The model's own choice is its first suggestion, and the list is best first.
      expect(b.suggestions[0].sku_id).toBe(b.sku_id);
      const scores = b.suggestions.map((x: any) => x.score);
      expect(scores).toEqual([...scores].sort((a: number, c: number) => c - a));
    }
    // A box drawn by hand over a Coca-Cola bottle of the bottom shelf: asked of the server.
    const coke = boxes.find((b: any) => b.sku_id === 'cocacola_pet');
    expect(coke, JSON.stringify(boxes.map((b: any) => b.sku_id))).toBeDefined();
    // What the scene's webhook delivery does in the background is not this request's doing: its
    // deliveries, and the signing secret it creates on its first delivery (a race, seen in CI).
    const stored = () => {
      const { webhook_deliveries: _deliveries, recognition_settings: settings, ...rest } = t.snapshot() as Record<string, unknown>;
      return { ...rest, recognition_settings: (settings as Array<{ name: string }>).filter((s) => s.name !== 'webhook_secret') };
    };
    const before = stored();
    const asked = await t.post(`/api/v1.5/scenes/${created.scene}/suggestions/`, { image: photo.id, x: coke.x + 2, y: coke.y - 3, w: coke.w * 0.95, h: coke.h * 0.95 });
    expect(asked.status, asked.text).toBe(200);
    expect(asked.body.suggestions[0].sku_id).toBe('cocacola_pet');
    expect(stored()).toEqual(before);
    // Bad boxes are a clear 4xx.
    expect((await t.post(`/api/v1.5/scenes/${created.scene}/suggestions/`, { image: 'nope', x: 10, y: 10, w: 5, h: 5 })).body).toHaveProperty('image');
    const outside = await t.post(`/api/v1.5/scenes/${created.scene}/suggestions/`, { image: photo.id, x: -500, y: -500, w: 10, h: 10 });
    expect(outside.status).toBe(400);
    expect((await t.post(`/api/v1.5/scenes/${created.scene}/suggestions/`, { image: photo.id, x: 10, y: 10, w: 0, h: 5 })).status).toBe(400);
    expect((await t.post('/api/v1.5/scenes/ghost/suggestions/', { image: photo.id, x: 10, y: 10, w: 5, h: 5 })).status).toBe(404);
  });

  it('refuses bad corrections with a clear 4xx and changes nothing', async () => {
    const before = await state();
    const keep = model.map(({ id, x, y, w, h, sku_id }) => ({ id, x, y, w, h, sku_id }));
    const put = (images: any[]) => t.call('PUT', annotationsPath(), { json: { images } });
    const cases: Array<[any[], number, string]> = [
      [[{ image: photo.id, version: 0, boxes: [...keep, { x: photo.width - 5, y: 50, w: 40, h: 40, sku_id: null }] }], 400, 'images[0].boxes[7]'],
      [[{ image: photo.id, version: 0, boxes: [...keep, { x: 100, y: 100, w: -10, h: 40, sku_id: null }] }], 400, 'images[0].boxes[7]'],
      [[{ image: photo.id, version: 0, boxes: [...keep, { x: 100, y: 100, w: 0, h: 40, sku_id: null }] }], 400, 'images[0].boxes[7]'],
      [[{ image: photo.id, version: 0, boxes: [{ ...keep[0], sku_id: 'no-such-sku' }] }], 400, 'images[0].boxes[0].sku_id'],
      [[{ image: 'no-such-image', version: 0, boxes: keep }], 400, 'images[0].image'],
      [[{ image: photo.id, version: 0, boxes: keep }, { image: photo.id, version: 0, boxes: keep }], 400, 'images[1].image'],
      [[{ image: photo.id, version: 0, boxes: [{ x: 100, y: 100, w: 'wide', h: 40, sku_id: null }] }], 400, 'images'],
      [[], 400, 'images'],
    ];
    for (const [images, status, field] of cases) {
      const res = await put(images);
      expect(res.status, res.text).toBe(status);
      expect(Object.keys(res.body).some((k) => k.startsWith(field)), res.text).toBe(true);
      expect(Object.values(res.body).every((v) => Array.isArray(v) && typeof (v as string[])[0] === 'string'), res.text).toBe(true);
    }
    expect(res400Detail((await put([{ image: photo.id, version: 0, boxes: [{ ...keep[0], sku_id: 'no-such-sku' }] }])).body)).toContain('Invalid pk "no-such-sku"');
    // A version nobody has read yet is stale too.
    const stale = await put([{ image: photo.id, version: 3, boxes: keep }]);
    expect(stale.status, stale.text).toBe(409);
    expect(stale.body).toMatchObject({ image: photo.id, version: 0 });
    expect(stale.body.detail).toMatch(/another reviewer/);
    expect((await t.call('PUT', '/api/v1.5/scenes/no-such-scene/annotations/', { json: { images: [{ image: photo.id, version: 0, boxes: keep }] } })).status).toBe(404);
    expect((await t.get('/api/v1.5/scenes/no-such-scene/annotations/')).status).toBe(404);
    expect(await state()).toEqual(before);
    expect((await t.get(`/api/v1.5/visits/${created.visit}/`)).body.moderation).toBe('unreviewed');
  });

  it('saves a correction: audit row, new reports from the corrected boxes, webhook, moderation, is_new', async () => {
    const visit = await dataVisit();
    expect((await t.post(`/api/data/v1.0/visits/${visit.id}/ack/`, {})).status).toBe(200);
    expect((await dataVisit()).is_new).toBe(false);
    // The leftmost Fanta becomes a Coca-Cola, the rightmost Sprite is removed (a detector extra, say)
    // and the reviewer draws a box around a product the catalog does not have.
    const fantas = model.filter((b) => b.sku_id === 'fanta_pet').sort((a, b) => a.x - b.x);
    const sprites = model.filter((b) => b.sku_id === 'sprite_pet').sort((a, b) => a.x - b.x);
    const boxes = model
      .filter((b) => b.id !== sprites[1].id)
      .map(({ id, x, y, w, h, sku_id }) => ({ id, x, y, w, h, sku_id: id === fantas[0].id ? 'cocacola_pet' : sku_id }));
    boxes.push({ x: 20, y: 20, w: 30, h: 30, sku_id: null, unknown_on_purpose: true } as any);
    const res = await t.call('PUT', annotationsPath(), { json: { images: [{ image: photo.id, version: 0, boxes }] } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.reviewed).toBe(true);
    const img = res.body.images[0];
    expect(img.version).toBe(1);
    expect(img.boxes).toHaveLength(7);
    expect(img.boxes.filter((b: any) => b.source === 'reviewer')).toHaveLength(2);
    expect(img.boxes.find((b: any) => b.id === fantas[0].id)).toMatchObject({ sku_id: 'cocacola_pet', source: 'reviewer', score: fantas[0].score, sku_score: 1 });
    expect(img.boxes.find((b: any) => b.sku_id === null)).toMatchObject({ x: 20, y: 20, w: 30, h: 30, unknown_on_purpose: true, source: 'reviewer' });
    expect(Object.keys(res.body.reports).sort()).toEqual([...TYPES].sort());

    // The reviewer is the API key that saved; the audit keeps the boxes before and after.
    const keys = await t.get('/api/app/v1/keys/');
    const keyList = keys.body.results ?? keys.body;
    expect(keyList).toHaveLength(1);
    expect(img.reviewer).toBe(keyList[0].id);
    const audit = await t.get(`/api/v1.5/scenes/${created.scene}/corrections/`);
    expect(audit.body.count).toBe(1);
    expect(audit.body.results[0]).toMatchObject({ scene: created.scene, image: photo.id, version: 1, reviewer: keyList[0].id });
    expect(audit.body.results[0].before).toEqual(model);
    expect(audit.body.results[0].after).toEqual(img.boxes);
    expect(Date.parse(audit.body.results[0].created_date)).toBeGreaterThan(Date.now() - 60_000);

    // New reports, following the replaced ones, built from the corrected boxes: hand-computed.
    const reports = await waitForReports(t, Object.values(res.body.reports));
    for (const type of TYPES) {
      const r = reports[res.body.reports[type]];
      expect(r.status, r.error).toBe('READY');
      expect(r.previous_report).toBe(created.reports[type]);
      expect(r.scene).toBe(created.scene);
    }
    expect(reports[res.body.reports.FACING_COUNT].json).toEqual([
      { sku_id: 'cocacola_pet', count: 3 },
      { sku_id: 'fanta_pet', count: 2 },
      { sku_id: 'sprite_pet', count: 1 },
      { sku_id: null, count: 1 },
    ]);
    const sos = Object.fromEntries(reports[res.body.reports.SHARE_OF_SPACE].json.map((r: any) => [String(r.sku_id), r.share_of_count]));
    expect(sos.cocacola_pet).toBeCloseTo(3 / 7, 3);
    expect(sos.null).toBeCloseTo(1 / 7, 3);
    const realogram = reports[res.body.reports.REALOGRAM].json[0];
    expect(realogram.annotations).toHaveLength(7);
    // The drawn box sits above every shelf: shelves are found again from the corrected boxes.
    expect(realogram.shelf_annotations).toHaveLength(3);
    // The old reports stay as they were.
    expect((await t.get(`/api/v1.5/reports/${created.reports.FACING_COUNT}/`)).body.json).toEqual(firstReports[created.reports.FACING_COUNT].json);

    // Re-delivered to the scene's webhook, as force_update does.
    const deadline = Date.now() + 20_000;
    const newIds = Object.values(res.body.reports) as string[];
    while (!newIds.every((id) => delivered.some((d) => d.reports[id])) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    for (const id of newIds) expect(delivered.some((d) => d.reports[id]?.status === 'READY' && d.id === created.id)).toBe(true);

    // The visit is reviewed and new again for Data API readers; its scenes show the corrected boxes.
    expect((await t.get(`/api/v1.5/visits/${created.visit}/`)).body.moderation).toBe('reviewed');
    // And the review's transactions (the save, the recomputed reports) projected it again.
    expect(await overviewFacts()).toEqual({
      visit: { review: 'reviewed', photos: 1, facings: 7, unknown_facings: 1, unjoined: 0 },
      products: { cocacola_pet: 3, fanta_pet: 2, sprite_pet: 1 },
    });
    const after = await dataVisit();
    expect(after.is_new).toBe(true);
    const detail = await t.get(`/api/data/v1.0/visits/${after.id}/`);
    expect(counts(detail.body.scenes[0].facing_counts)).toEqual({ cocacola_pet: 3, fanta_pet: 2, sprite_pet: 1, null: 1 });
    expect((await t.get(annotationsPath())).body.images[0]).toMatchObject({ version: 1, boxes: img.boxes });
  }, 180_000);

  it('lets only one of two reviewers racing on the same version win; the other gets a 409 and changes nothing', async () => {
    const current = (await t.get(annotationsPath())).body.images[0];
    const a = current.boxes.map(({ id, x, y, w, h, sku_id }: any) => ({ id, x, y, w, h, sku_id }));
    const b = a.slice(1);
    const [ra, rb] = await Promise.all([
      t.call('PUT', annotationsPath(), { json: { images: [{ image: photo.id, version: 1, boxes: a }] } }),
      t.call('PUT', annotationsPath(), { json: { images: [{ image: photo.id, version: 1, boxes: b }] } }),
    ]);
    expect([ra.status, rb.status].sort()).toEqual([200, 409]);
    const [won, lost] = ra.status === 200 ? [ra, rb] : [rb, ra];
    expect(lost.body).toMatchObject({ image: photo.id, version: 2 });
    expect(lost.body.detail).toMatch(/version 1, it is now version 2/);
    const now = (await t.get(annotationsPath())).body.images[0];
    expect(now.version).toBe(2);
    expect(now.boxes).toEqual(won.body.images[0].boxes);
    const audit = await t.get(`/api/v1.5/scenes/${created.scene}/corrections/`);
    expect(audit.body.count).toBe(2);
    // The loser read again and saves on the new version: accepted.
    const again = await t.call('PUT', annotationsPath(), { json: { images: [{ image: photo.id, version: 2, boxes: a }] } });
    expect(again.status, again.text).toBe(200);
    expect(again.body.images[0].version).toBe(3);
    await waitForReports(t, Object.values(again.body.reports));
  }, 180_000);

  it('exports only reviewed scenes as COCO with per-SKU crops, read back', async () => {
    // A second scene of the same visit, not reviewed: not exported, and the visit is back in review.
    const second = await t.post('/api/v1.5/recognize/', { images: [photo.id], visit: created.visit, report_types: ['FACING_COUNT'] });
    expect(second.status, second.text).toBe(201);
    await waitForReports(t, Object.values(second.body.reports));
    expect((await t.get(`/api/v1.5/visits/${created.visit}/`)).body.moderation).toBe('in_review');

    const final = (await t.get(annotationsPath())).body.images[0];
    const out = mkdtempSync(path.join(os.tmpdir(), 'review-export-'));
    try {
      const summary = await exportTraining(t.server.app.db, t.dataDir, out);
      expect(summary).toMatchObject({ scenes: 1, images: 1, annotations: 7, crops: 6 });
      const coco = JSON.parse(readFileSync(path.join(out, 'annotations.json'), 'utf8'));
      expect(coco.categories).toEqual([{ id: 1, name: 'product' }]);
      expect(coco.images).toEqual([{ id: 1, file_name: 'images/1.jpg', width: photo.width, height: photo.height, upload: photo.id, scene: created.scene }]);
      const meta = await sharp(path.join(out, 'images/1.jpg')).metadata();
      expect([meta.width, meta.height]).toEqual([photo.width, photo.height]);
      expect(coco.annotations).toHaveLength(7);
      for (const box of final.boxes) {
        const found = coco.annotations.find((a: any) => a.attributes.sku_id === box.sku_id && Math.abs(a.bbox[0] - (box.x - box.w / 2)) < 0.01 && Math.abs(a.bbox[1] - (box.y - box.h / 2)) < 0.01);
        expect(found, JSON.stringify(box)).toBeDefined();
        expect(found).toMatchObject({ image_id: 1, category_id: 1, iscrowd: 0 });
        expect(found.bbox[2]).toBeCloseTo(box.w, 1);
        expect(found.bbox[3]).toBeCloseTo(box.h, 1);
      }
      const perSku = Object.fromEntries(readdirSync(path.join(out, 'crops')).map((d) => [d, readdirSync(path.join(out, 'crops', d)).sort()]));
      expect(perSku).toEqual({ cocacola_pet: ['1.jpg', '2.jpg', '3.jpg'], fanta_pet: ['1.jpg', '2.jpg'], sprite_pet: ['1.jpg'] });
      const crop = await sharp(path.join(out, 'crops', 'sprite_pet', '1.jpg')).metadata();
      const sprite = final.boxes.find((b: any) => b.sku_id === 'sprite_pet');
      expect(Math.abs(crop.width! - sprite.w)).toBeLessThanOrEqual(1);
      expect(Math.abs(crop.height! - sprite.h)).toBeLessThanOrEqual(1);

      // --since after the last save: nothing; through the built CLI, the same export.
      const later = await exportTraining(t.server.app.db, t.dataDir, path.join(out, 'later'), { since: new Date(Date.now() + 60_000).toISOString() });
      expect(later).toMatchObject({ scenes: 0, images: 0, annotations: 0, crops: 0 });
      const cliOut = path.join(out, 'cli');
      const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, 'dist/main/cli/cli.js'), 'export-training', '--out', cliOut, '--since', '2000-01-01', '--data-dir', t.dataDir]);
      expect(JSON.parse(stdout)).toMatchObject({ scenes: 1, images: 1, annotations: 7, crops: 6 });
      expect(JSON.parse(readFileSync(path.join(cliOut, 'annotations.json'), 'utf8')).annotations).toEqual(coco.annotations);
      const bad = await promisify(execFile)(process.execPath, [path.join(root, 'dist/main/cli/cli.js'), 'export-training', '--data-dir', t.dataDir]).catch((e) => e);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--out/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 180_000);
});

function res400Detail(body: Record<string, string[]>): string {
  return Object.values(body).flat().join(' ');
}
