// A bay through the real API: a composed shelf of known layout (catalog SKUs) cut into two overlapping
// photos, the second farther away, sent to /recognize in reverse order as one scene. FACING_COUNT
// counts each facing once, PLANOGRAM_COMPLIANCE compares the whole bay with the planogram (positions
// running across both photos), REALOGRAM gives each box's merged facing in bay pixels, PANORAMA is laid
// out by the bay with the merged boxes; a photo that cannot be joined is said in words in the bodies.
// A scene of more photos than the limit is a 400 that names the limit. The review reads the bay with its
// merged facings named by each photo's box ids; a correction of a facing seen in both photos, sent to
// both, changes the count by one, and the training export keeps each photo's own boxes in its pixels.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../api/harness.js';
import { exportTraining } from '../../main/server/scenes/training-export.js';
import { composeShelf, UPRIGHT } from './fixtures.js';
import { createCatalog, upload, waitForReports } from './helpers.js';

const LAYOUT: Array<Array<[string, number]>> = [
  [['fanta_pet', 4], ['sprite_pet', 3], ['cocacola_pet', 3]],
  [['cream_soda_pet', 4], ['minute_maid', 5]],
];
const EXPECTED: Record<string, number> = { fanta_pet: 4, sprite_pet: 3, cocacola_pet: 3, cream_soda_pet: 4, minute_maid: 5 };
const TYPES = ['FACING_COUNT', 'PLANOGRAM_COMPLIANCE', 'MHL_COMPLIANCE', 'REALOGRAM', 'SHARE_OF_SPACE', 'PANORAMA'];

let t: TestServer;
let left: any;
let right: any;
let blank: any;
/** The bay scene recognised below, and its first reports: the review reads and corrects it. */
let bayScene: { scene: string; reports: Record<string, string> };
let bayReports: Record<string, any>;

beforeAll(async () => {
  t = await startTestServer();
  await createCatalog(t, UPRIGHT);
  const shelf = await composeShelf(LAYOUT);
  const cw = Math.round(shelf.width * 0.62);
  left = await upload(t, await sharp(shelf.jpeg).extract({ left: 0, top: 0, width: cw, height: shelf.height }).jpeg({ quality: 92 }).toBuffer(), 'left.jpg');
  right = await upload(
    t,
    await sharp(shelf.jpeg).extract({ left: shelf.width - cw, top: 0, width: cw, height: shelf.height }).resize(Math.round(cw * 0.9)).modulate({ brightness: 1.1 }).jpeg({ quality: 92 }).toBuffer(),
    'right.jpg',
  );
  blank = await upload(t, await sharp({ create: { width: 600, height: 400, channels: 3, background: '#808080' } }).jpeg().toBuffer(), 'blank.jpg');
  expect((await t.post('/api/v1.5/displays/', { id: 'bay', name: 'bay display' })).status).toBe(201);
  expect((await t.post('/api/v1.5/planograms/', { id: 'pg-bay', name: 'bay', display: 'bay' })).status).toBe(201);
  let productIndex = 0;
  for (const [shelfIndex, row] of LAYOUT.entries()) {
    for (const [sku, facings] of row) {
      const r = await t.post('/api/v1.5/planogram_records/', { planogram: 'pg-bay', sku, rack_index: 0, shelf_index: shelfIndex, product_index: productIndex++, facing_x: facings, facing_y: 1 });
      expect(r.status, r.text).toBe(201);
    }
  }
  expect((await t.post('/api/v1.5/mhl/', { id: 'mhl-bay', name: 'must have', display: 'bay' })).status).toBe(201);
  expect((await t.post('/api/v1.5/mhl_record/', { id: 'm-sprite', musthavelist: 'mhl-bay', sku: 'sprite_pet' })).status).toBe(201);
}, 300_000);
afterAll(async () => t?.close());

describe('a bay of two photos through /recognize', () => {
  let created: any;
  let reports: Record<string, any>;
  const body = (type: string) => {
    const r = reports[created.reports[type]];
    expect(r.status, r.error).toBe('READY');
    return r.json;
  };

  beforeAll(async () => {
    const res = await t.post('/api/v1.5/recognize/', { images: [right.id, left.id], display: 'bay', report_types: TYPES });
    expect(res.status, res.text).toBe(201);
    created = res.body;
    reports = await waitForReports(t, Object.values(created.reports), 240_000);
    [bayScene, bayReports] = [created, reports];
  }, 300_000);

  it('counts every facing once', () => {
    const counts = Object.fromEntries(body('FACING_COUNT').map((r: any) => [r.sku_id, r.count]));
    for (const [sku, n] of Object.entries(EXPECTED)) expect(Math.abs((counts[sku] ?? 0) - n), `${sku}: ${counts[sku]}`).toBeLessThanOrEqual(1);
    const total = body('FACING_COUNT').reduce((s: number, r: any) => s + r.count, 0);
    expect(Math.abs(total - 19)).toBeLessThanOrEqual(1);
  });

  it('compares the whole bay with the planogram and says both photos were joined', () => {
    const pc = body('PLANOGRAM_COMPLIANCE');
    expect(pc.bay.joined.sort()).toEqual([left.id, right.id].sort());
    expect(pc.bay.not_joined).toEqual([]);
    expect(pc.compliance).toBeGreaterThanOrEqual(0.9);
    expect(new Set(pc.positions.map((p: any) => p.rack_index))).toEqual(new Set([0]));
    expect(body('MHL_COMPLIANCE').bay.joined).toHaveLength(2);
  });

  it('gives each box its merged facing in bay pixels, one view counted', () => {
    const rg = body('REALOGRAM');
    expect(rg.map((i: any) => i.image)).toEqual([right.id, left.id]);
    expect(rg.every((i: any) => i.joined === true && i.rack_index === 0 && i.transform.length === 9)).toBe(true);
    const all = rg.flatMap((i: any) => i.annotations.map((a: any) => ({ ...a, image: i.image })));
    const facings = new Set(all.map((a: any) => a.facing));
    expect(all.filter((a: any) => a.counted)).toHaveLength(facings.size);
    // Some facings were seen in both photos.
    const seenTwice = [...facings].filter((f) => new Set(all.filter((a: any) => a.facing === f).map((a: any) => a.image)).size === 2);
    expect(seenTwice.length).toBeGreaterThanOrEqual(3);
    expect(all.every((a: any) => a.bay_w > 0 && a.bay_h > 0)).toBe(true);
    const sos = body('SHARE_OF_SPACE');
    expect(sos.reduce((s: number, r: any) => s + r.share_of_count, 0)).toBeCloseTo(1, 3);
  });

  it('lays the panorama out by the bay and draws the merged facings', async () => {
    const pano = body('PANORAMA');
    expect(pano.stitched).toBe(true);
    expect(pano.boxes).toBe(body('FACING_COUNT').reduce((s: number, r: any) => s + r.count, 0));
    expect(pano.bay.joined).toHaveLength(2);
    const img = await fetch(pano.url);
    expect(img.status).toBe(200);
  });
});

describe('the review of a bay', () => {
  it('reads the merged facings, corrects one seen in both photos once, and exports each photo in its own pixels', async () => {
    const res = { body: bayScene };
    const counts = (json: any[]) => Object.fromEntries(json.map((r: any) => [r.sku_id, r.count]));
    const before = counts(bayReports[res.body.reports.FACING_COUNT].json);
    const path1 = `/api/v1.5/scenes/${res.body.scene}/annotations/`;
    const read = (await t.get(path1)).body;
    expect(read.bay.photos.map((p: any) => p.joined)).toEqual([true, true]);
    // Every box of both photos is a view of exactly one facing; the facings are what FACING_COUNT counts.
    const views = read.bay.facings.flatMap((f: any) => f.views.map((v: any) => `${v.image}/${v.box}`));
    expect(new Set(views).size).toBe(views.length);
    expect(views.sort()).toEqual(read.images.flatMap((i: any) => i.boxes.map((b: any) => `${i.image}/${b.id}`)).sort());
    expect(read.bay.facings).toHaveLength(Object.values(before).reduce((s: number, n: any) => s + n, 0));
    // A cola seen in both photos becomes a sprite in both: one more sprite, one cola less.
    const shared = read.bay.facings.find((f: any) => f.views.length === 2 && f.sku_id === 'cocacola_pet');
    expect(shared, JSON.stringify(read.bay.facings.map((f: any) => [f.sku_id, f.views.length]))).toBeDefined();
    expect(shared.counted).toEqual(shared.views[0]);
    const images = read.images.map((img: any) => ({
      image: img.image,
      version: img.version,
      boxes: img.boxes.map((b: any) => ({ id: b.id, x: b.x, y: b.y, w: b.w, h: b.h, sku_id: shared.views.some((v: any) => v.image === img.image && v.box === b.id) ? 'sprite_pet' : b.sku_id })),
    }));
    const saved = await t.call('PUT', path1, { json: { images } });
    expect(saved.status, saved.text).toBe(200);
    const again = saved.body.bay.facings.find((f: any) => f.views.some((v: any) => v.image === shared.views[0].image && v.box === shared.views[0].box));
    expect(again).toMatchObject({ sku_id: 'sprite_pet', views: shared.views });
    const after = counts((await waitForReports(t, [saved.body.reports.FACING_COUNT], 240_000))[saved.body.reports.FACING_COUNT].json);
    expect(after.sprite_pet).toBe(before.sprite_pet + 1);
    expect(after.cocacola_pet ?? 0).toBe(before.cocacola_pet - 1);

    // The export: one image per photo, each with its own boxes in its own pixels, as for any scene.
    const out = mkdtempSync(path.join(os.tmpdir(), 'bay-export-'));
    try {
      await exportTraining(t.server.app.db, t.dataDir, out);
      const coco = JSON.parse(readFileSync(path.join(out, 'annotations.json'), 'utf8'));
      const mine = coco.images.filter((i: any) => i.scene === res.body.scene);
      expect(mine.map((i: any) => [i.upload, i.width, i.height])).toEqual(saved.body.images.map((i: any) => [i.image, i.width, i.height]));
      for (const [k, img] of saved.body.images.entries()) {
        const anns = coco.annotations.filter((a: any) => a.image_id === mine[k].id);
        expect(anns).toHaveLength(img.boxes.length);
        for (const [j, b] of img.boxes.entries()) {
          expect(anns[j].bbox[0]).toBeCloseTo(b.x - b.w / 2, 1);
          expect(anns[j].bbox[2]).toBeCloseTo(b.w, 1);
          expect(anns[j].attributes.sku_id).toBe(b.sku_id);
        }
      }
      expect(coco.annotations.filter((a: any) => a.attributes.sku_id === 'sprite_pet' && mine.some((i: any) => i.id === a.image_id)).length).toBeGreaterThanOrEqual(2);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 300_000);
});

describe("a new photo's overlap with the one before", () => {
  it('is measured by a quick registration, said in words, and refused for uploads that are not there', async () => {
    const res = await t.post('/api/v1.5/uploads/overlap/', { previous: left.id, next: right.id });
    expect(res.status, res.text).toBe(200);
    // The right photo shows 24 % of the shelf's width again (62 % + 62 % - 100 %), 0.24 / 0.62 of itself.
    expect(res.body.joined).toBe(true);
    expect(res.body.overlap).toBeGreaterThan(0.3);
    expect(res.body.overlap).toBeLessThan(0.5);
    expect(res.body.message).toMatch(/^Joined to the photo before: \d+ % overlaps it\.$/);
    const same = await t.post('/api/v1.5/uploads/overlap/', { previous: left.id, next: left.id });
    expect(same.body).toMatchObject({ joined: true, message: expect.stringMatching(/shows the same as the one before/) });
    const plain = await t.post('/api/v1.5/uploads/overlap/', { previous: left.id, next: blank.id });
    expect(plain.body).toMatchObject({ joined: false, overlap: null, reason: 'no_features', message: expect.stringMatching(/too little detail/) });
    const missing = await t.post('/api/v1.5/uploads/overlap/', { previous: left.id, next: 'no-such-upload' });
    expect(missing.status).toBe(400);
    expect(missing.body.next[0]).toMatch(/no-such-upload/);
  });
});

describe('photos that cannot be joined', () => {
  it('are named in the report bodies, in words, and counted as their own rack', async () => {
    const res = await t.post('/api/v1.5/recognize/', { images: [left.id, blank.id], display: 'bay', report_types: ['PLANOGRAM_COMPLIANCE', 'REALOGRAM'] });
    expect(res.status, res.text).toBe(201);
    const reports = await waitForReports(t, Object.values(res.body.reports), 240_000);
    const pc = reports[res.body.reports.PLANOGRAM_COMPLIANCE].json;
    // Neither photo joins the other: no bay, both are racks of their own as before.
    expect(pc.bay.joined).toEqual([]);
    const blankEntry = pc.bay.not_joined.find((n: any) => n.image === blank.id);
    expect(blankEntry.reason).toBe('no_features');
    expect(blankEntry.message).toMatch(/^Photo 2 shows too little detail/);
    const rg = reports[res.body.reports.REALOGRAM].json;
    expect(rg.map((i: any) => [i.joined, i.rack_index])).toEqual([[false, 0], [false, 1]]);
  }, 300_000);

  it('a scene of more photos than the limit is a 400 naming the limit', async () => {
    const ids = [];
    for (let i = 0; i < 17; i++) ids.push((await upload(t, await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: i * 10, g: 0, b: 0 } } }).jpeg().toBuffer(), `p${i}.jpg`)).id);
    const res = await t.post('/api/v1.5/recognize/', { images: ids, report_types: ['FACING_COUNT'] });
    expect(res.status).toBe(400);
    expect(res.body.images[0]).toMatch(/at most 16 photos/);
  });
});
