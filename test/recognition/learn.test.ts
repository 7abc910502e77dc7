// Learning from the shelf through the real API and models: a product with no reference is unknown on
// a recognised shelf; a supervisor's correction names it, which adds references of that SKU cut from
// the photo at once (source 'review', listed and removable like the others); a second photo of the
// shelf is then recognised with them. Boxes left as the model had them teach nothing. Also the rule of
// which boxes of a save are learnt, on its own.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../api/harness.js';
import { learnableBoxes } from '../../main/server/scenes/learn.js';
import type { StoredBox } from '../../main/server/scenes/review.js';
import { composeShelf, type ComposedShelf } from './fixtures.js';
import { createCatalog, createSku, upload, waitForReports } from './helpers.js';

// Cream soda has an SKU but no reference image: recognition cannot know it until a review teaches it.
const LAYOUT: Array<Array<[string, number]>> = [[['fanta_pet', 2], ['cream_soda_pet', 3]], [['sprite_pet', 2]]];

let t: TestServer;

/** Recognises a photo; answers the scene, its only image's annotations and the composed truth. */
async function recognise(shelf: ComposedShelf, jpeg = shelf.jpeg) {
  const photo = await upload(t, jpeg, 'shelf.jpg');
  const res = await t.post('/api/v1.5/recognize/', { images: [photo.id], report_types: ['FACING_COUNT'] });
  expect(res.status, res.text).toBe(201);
  await waitForReports(t, Object.values(res.body.reports));
  const ann = await t.get(`/api/v1.5/scenes/${res.body.scene}/annotations/`);
  return { scene: res.body.scene as string, image: ann.body.images[0] };
}

/** The placed product whose box a detector box matches best (centre inside), or undefined. */
function placedAt(shelf: ComposedShelf, b: { x: number; y: number }) {
  return shelf.products.find((p) => b.x >= p.x1 && b.x <= p.x2 && b.y >= p.y1 && b.y <= p.y2);
}

const creamSodaFound = (shelf: ComposedShelf, boxes: any[]) =>
  boxes.filter((b) => placedAt(shelf, b)?.product === 'cream_soda_pet' && b.sku_id === 'cream_soda_pet').length;

beforeAll(async () => {
  t = await startTestServer();
  await createCatalog(t, ['fanta_pet', 'sprite_pet'], 2);
  await createSku(t, 'cream_soda_pet', []);
}, 300_000);

afterAll(async () => {
  await t?.close();
});

describe('learning from a review', () => {
  it('adds a corrected box as a reference of its SKU at once, and the next photo of the shelf is recognised with it', async () => {
    const shelf = await composeShelf(LAYOUT);
    const first = await recognise(shelf);
    expect(creamSodaFound(shelf, first.image.boxes)).toBe(0);

    // The supervisor names every cream soda box; the others are sent back as they were.
    const boxes = first.image.boxes.map((b: any) => {
      const relabel = placedAt(shelf, b)?.product === 'cream_soda_pet';
      return { id: b.id, x: b.x, y: b.y, w: b.w, h: b.h, sku_id: relabel ? 'cream_soda_pet' : b.sku_id };
    });
    const relabelled = boxes.filter((b: any, i: number) => b.sku_id !== first.image.boxes[i].sku_id).length;
    expect(relabelled).toBeGreaterThanOrEqual(2);
    const save = await t.put(`/api/v1.5/scenes/${first.scene}/annotations/`, { images: [{ image: first.image.image, version: first.image.version, boxes }] });
    expect(save.status, save.text).toBe(200);

    const learnt = (await t.get('/api/v1.5/sku/cream_soda_pet/images/')).body.results;
    // Two per SKU and photo, cut from the photo inside its bounds.
    expect(learnt).toHaveLength(2);
    for (const ref of learnt) {
      expect(ref.source).toBe('review');
      expect(ref.upload).toBe(first.image.image);
      expect(ref.crop.x).toBeGreaterThanOrEqual(0);
      expect(ref.crop.x + ref.crop.w).toBeLessThanOrEqual(shelf.width);
      expect(ref.crop.y + ref.crop.h).toBeLessThanOrEqual(shelf.height);
      expect(placedAt(shelf, { x: ref.crop.x + ref.crop.w / 2, y: ref.crop.y + ref.crop.h / 2 })?.product).toBe('cream_soda_pet');
    }
    // The boxes left as the model had them taught nothing: the other SKUs keep their own references.
    for (const sku of ['fanta_pet', 'sprite_pet']) {
      const refs = (await t.get(`/api/v1.5/sku/${sku}/images/`)).body.results;
      expect(refs.every((r: any) => r.source === 'upload')).toBe(true);
    }

    // A second photo of the shelf: larger and darker, its products in another order.
    const again = await composeShelf([[['cream_soda_pet', 3], ['sprite_pet', 1]], [['fanta_pet', 2]]], 130);
    const second = await recognise(again, await sharp(again.jpeg).modulate({ brightness: 0.85 }).jpeg({ quality: 88 }).toBuffer());
    expect(creamSodaFound(again, second.image.boxes)).toBeGreaterThanOrEqual(2);

    // Removable like any reference: gone, the SKU is unknown again.
    for (const ref of learnt) expect((await t.call('DELETE', `/api/v1.5/sku/cream_soda_pet/images/${ref.id}/`)).status).toBe(200);
    expect((await t.get('/api/v1.5/sku/cream_soda_pet/images/')).body.count).toBe(0);
    const third = await recognise(again);
    expect(creamSodaFound(again, third.image.boxes)).toBe(0);
  }, 300_000);
});

describe('which boxes of a save are learnt', () => {
  const box = (id: string, sku: string | null, over: Partial<StoredBox> = {}): StoredBox => ({
    id, x: 100, y: 100, w: 60, h: 120, sku_id: sku, score: 0.9, sku_score: 0.9, source: 'model', unknown_on_purpose: false, ...over,
  });
  const byReviewer = (b: StoredBox, over: Partial<StoredBox> = {}): StoredBox => ({ ...b, source: 'reviewer', sku_score: 1, ...over });

  it('learns relabelled and drawn boxes, not those left alone, moved with their SKU, or made unknown', () => {
    const before = [box('a', null), box('b', 'x'), box('c', 'x'), box('d', 'y')];
    const after = [
      byReviewer(before[0], { sku_id: 's' }), // named
      byReviewer(before[1], { sku_id: 't' }), // renamed
      before[2], // left alone
      byReviewer(before[3], { x: 140 }), // moved, same SKU
      byReviewer(box('e', null), { sku_id: 'u' }), // drawn
      byReviewer(box('f', null)), // drawn, unknown
    ];
    expect(learnableBoxes(before, after).map((b) => b.id).sort()).toEqual(['a', 'b', 'e']);
  });

  it('keeps the two largest boxes of an SKU per photo and skips boxes too small to describe', () => {
    const after = [
      byReviewer(box('small', null, { w: 20 }), { sku_id: 's' }),
      byReviewer(box('m', null, { w: 50 }), { sku_id: 's' }),
      byReviewer(box('l', null, { w: 70 }), { sku_id: 's' }),
      byReviewer(box('xl', null, { w: 90 }), { sku_id: 's' }),
    ];
    expect(learnableBoxes([], after).map((b) => b.id)).toEqual(['xl', 'l']);
  });
});
