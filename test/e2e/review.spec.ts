// Reviewing a really recognised photo on the visit screen: change a box's product, delete a
// box, draw one, undo, save; the counts beside the photo follow every edit, the recomputed reports
// (facing counts, planogram compliance) follow the save. Leaving with unsaved corrections asks first,
// and a save over someone else's newer one is refused with a way to reload.
import { readFile } from 'node:fs/promises';
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, screenshot, test } from './fixtures.js';
import { composeShelf, referenceImages } from './shelfPhoto.js';

const PRODUCTS = [
  { id: 'cola', crops: 'cocacola_pet', name: 'Coca-Cola 0.5 PET' },
  { id: 'sprite', crops: 'sprite_pet', name: 'Sprite 0.5 PET' },
  { id: 'fanta', crops: 'fanta_pet', name: 'Fanta Orange 0.5 PET' },
  { id: 'cream', crops: 'cream_soda_pet', name: 'Cream Soda 0.5 PET' },
];
const NAMES = PRODUCTS.map((p) => p.name);

test.setTimeout(600_000);

async function uploadFile(api: APIRequestContext, file: string): Promise<string> {
  const res = await api.post('/api/v1.5/uploads/', { multipart: { datafile: { name: 'photo.jpg', mimeType: 'image/jpeg', buffer: await readFile(file) } } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).id;
}

async function created(res: Awaited<ReturnType<APIRequestContext['post']>>): Promise<Record<string, string>> {
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as Record<string, string>;
}

/** The catalog, a display whose planogram expects cream soda, and a visit recognised on a shelf without it. */
async function recognisedVisit(api: APIRequestContext, photo: string): Promise<{ visit: string; scene: string }> {
  for (const p of PRODUCTS) {
    await created(await api.post('/api/v1.5/sku/', { data: { id: p.id, name: p.name } }));
    for (const file of referenceImages(p.crops)) await created(await api.post(`/api/v1.5/sku/${p.id}/images/`, { data: { image: await uploadFile(api, file) } }));
  }
  await created(await api.post('/api/v1.5/displays/', { data: { id: 'cold', name: 'Cold drinks' } }));
  await created(await api.post('/api/v1.5/planograms/', { data: { id: 'cold-std', name: 'Cold drinks standard', display: 'cold' } }));
  const layout: Array<Array<[string, number]>> = [
    [['cola', 3], ['sprite', 2]],
    [['fanta', 3], ['cream', 2]],
  ];
  let productIndex = 0;
  for (const [shelf, row] of layout.entries())
    for (const [sku, facings] of row)
      await created(await api.post('/api/v1.5/planogram_records/', { data: { planogram: 'cold-std', sku, rack_index: 0, shelf_index: shelf, product_index: productIndex++, facing_x: facings, facing_y: 1 } }));
  await created(await api.post('/api/v1.5/visits/', { data: { id: 'visit-review', shop: 'Store 7', agent: 'dana' } }));
  const recognition = await created(
    await api.post('/api/v1.5/recognize/', {
      data: { images: [await uploadFile(api, photo)], display: 'cold', visit: 'visit-review', report_types: ['FACING_COUNT', 'PLANOGRAM_COMPLIANCE', 'REALOGRAM'] },
    }),
  );
  return { visit: recognition.visit, scene: recognition.scene };
}

/** The rows of a product/count table as "name: count" (the "was" note left out). */
async function countRows(page: Page, table: string): Promise<string[]> {
  return page
    .getByRole('table', { name: table })
    .locator('tbody tr')
    .evaluateAll((rows: HTMLTableRowElement[]) => rows.map((r) => `${r.cells[0].textContent!.trim()}: ${parseInt(r.cells[1].textContent!, 10)}`).filter((r) => !r.endsWith(': 0')).sort());
}

const total = (page: Page) => page.getByRole('table', { name: 'Counts as corrected' }).locator('tfoot td');

test('review a recognised photo: change an SKU, delete a box, draw one, undo, save; counts and compliance follow', async ({ app: page, api, consoleErrors }, testInfo) => {
  const photo = testInfo.outputPath('shelf.jpg');
  await composeShelf(photo, [
    [
      ['cocacola_pet', 3],
      ['sprite_pet', 2],
    ],
    [['fanta_pet', 3]],
  ]);
  const { visit, scene } = await recognisedVisit(api, photo);

  await page.goto(`/#/visits/${visit}`);
  await expect(page.getByRole('heading', { name: 'Visit at Store 7' })).toBeVisible();
  await expect(page.getByText('All reports ready')).toBeVisible({ timeout: 300_000 });
  const score = page.getByLabel('Compliance score');
  await expect(score).toHaveText(/\d+(\.\d)?%/);
  const scoreBefore = await score.textContent();
  const facingsBefore = await countRows(page, 'Facing counts');

  await page.getByRole('button', { name: 'Review boxes' }).click();
  const boxes = page.getByRole('group', { name: 'Boxes on photo 1' }).getByRole('button');
  await expect(boxes.first()).toBeVisible();
  const boxCount = await boxes.count();
  expect(boxCount).toBeGreaterThanOrEqual(4);
  // Pan (drag the dark edge beside the photo), zoom (keys and wheel), Fit: one transform moves the
  // photo and its boxes together.
  const stage = page.locator('.review-stage');
  const viewport = (await page.locator('.review-viewport').boundingBox())!;
  const fitted = (await stage.boundingBox())!;
  const firstBox = async () => (await boxes.first().boundingBox())!;
  const boxAtFit = await firstBox();
  await page.mouse.move(viewport.x + 4, viewport.y + 4);
  await page.mouse.down();
  await page.mouse.move(viewport.x + 64, viewport.y + 34, { steps: 4 });
  await page.mouse.up();
  await expect.poll(async () => Math.round((await stage.boundingBox())!.x - fitted.x)).toBe(60);
  expect(Math.round((await firstBox()).y - boxAtFit.y)).toBe(30);
  await page.keyboard.press('0');
  await expect.poll(async () => Math.round((await stage.boundingBox())!.x)).toBe(Math.round(fitted.x));
  await page.keyboard.press('+');
  await expect.poll(async () => (await stage.boundingBox())!.width).toBeCloseTo(fitted.width * 1.25, 0);
  await page.mouse.move(viewport.x + viewport.width / 2, viewport.y + viewport.height / 2);
  await page.mouse.wheel(0, -200);
  await expect.poll(async () => (await stage.boundingBox())!.width).toBeGreaterThan(fitted.width * 1.5);
  expect((await firstBox()).width).toBeGreaterThan(boxAtFit.width * 1.5);
  await page.getByRole('button', { name: 'Fit' }).click();
  await expect.poll(async () => Math.round((await stage.boundingBox())!.width)).toBe(Math.round(fitted.width));

  // Nothing edited yet: the counts beside the photo are the facing counts report's.
  expect(await countRows(page, 'Counts as corrected')).toEqual(facingsBefore);
  const selectedBox = page.getByRole('region', { name: 'Selected box' });

  /** Steps with N to the next box showing one of these products; answers its name. */
  async function nextBoxOf(names: string[]): Promise<string> {
    for (let i = 0; i < boxCount; i++) {
      await page.keyboard.press('n');
      const text = (await selectedBox.locator('strong').textContent()) ?? '';
      const hit = names.find((n) => text.includes(n));
      if (hit) return hit;
    }
    throw new Error(`no box of ${names.join(', ')}`);
  }

  // 1. Change a box's product to cream soda, through the picker (C, search, choose).
  const relabelled = await nextBoxOf(NAMES.filter((n) => n !== 'Cream Soda 0.5 PET'));
  await page.keyboard.press('c');
  const picker = page.getByRole('group', { name: 'Change product' });
  // The box's current product comes first, then the identifier's other candidates for its crop.
  const offered = picker.getByRole('list', { name: 'Products' }).getByRole('button');
  await expect(offered.first()).toContainText(relabelled);
  await expect(offered.filter({ hasText: '(suggested' }).first()).toBeVisible();
  await picker.getByRole('searchbox', { name: 'Find product' }).fill('Cream');
  await picker.getByRole('button', { name: 'Cream Soda 0.5 PET' }).click();
  await expect(selectedBox.locator('strong')).toHaveText('Cream Soda 0.5 PET');
  const counts = page.getByRole('table', { name: 'Counts as corrected' });
  await expect(counts.getByRole('row', { name: /Cream Soda 0.5 PET/ })).toContainText('1 (was 0)');
  await expect(page.getByText('1 photo with unsaved corrections')).toBeVisible();

  // Resize it by its lower right corner (drawn over its neighbours while selected); undo that.
  const outline = page.locator('.box-active > rect').first();
  const sized = (await outline.boundingBox())!;
  const corner = (await page.locator('.box-active .handle').nth(3).boundingBox())!;
  await page.mouse.move(corner.x + corner.width / 2, corner.y + corner.height / 2);
  await page.mouse.down();
  await page.mouse.move(corner.x + corner.width / 2 + 12, corner.y + corner.height / 2 + 8, { steps: 3 });
  await page.mouse.up();
  await expect.poll(async () => Math.round((await outline.boundingBox())!.width - sized.width)).toBe(12);
  await page.keyboard.press('Control+z');
  await expect.poll(async () => Math.round((await outline.boundingBox())!.width)).toBe(Math.round(sized.width));
  await expect(selectedBox.locator('strong')).toHaveText('Cream Soda 0.5 PET');

  // 2. Mark another box as not a product (Delete).
  await nextBoxOf(NAMES);
  await page.keyboard.press('Delete');
  await expect(boxes).toHaveCount(boxCount - 1);
  await expect(total(page)).toHaveText(String(boxCount - 1));

  // 3. Draw a box over the empty end of the lower shelf, and name it.
  await page.getByRole('button', { name: 'Draw box' }).click();
  const at = (await stage.boundingBox())!;
  await page.mouse.move(at.x + at.width * 0.8, at.y + at.height * 0.62);
  await page.mouse.down();
  await page.mouse.move(at.x + at.width * 0.88, at.y + at.height * 0.75, { steps: 5 });
  await page.mouse.move(at.x + at.width * 0.92, at.y + at.height * 0.88, { steps: 5 });
  await page.mouse.up();
  await expect(boxes).toHaveCount(boxCount);
  await expect(selectedBox).toContainText('Drawn now, not saved yet');
  // A drawn box has no stored candidates: the server is asked for the crop as drawn.
  await expect(picker.getByRole('list', { name: 'Products' }).getByRole('button').filter({ hasText: '(suggested' }).first()).toBeVisible();
  await picker.getByRole('searchbox', { name: 'Find product' }).fill('Sprite');
  await picker.getByRole('button', { name: 'Sprite 0.5 PET' }).click();
  await expect(total(page)).toHaveText(String(boxCount));
  await screenshot(page, 'review-editing');

  // 4. Undo: the drawn box's product, then the box itself (button, then Ctrl+Z); redo and undo again.
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(selectedBox.locator('strong')).toHaveText('No product chosen');
  await page.keyboard.press('Control+z');
  await expect(boxes).toHaveCount(boxCount - 1);
  await page.keyboard.press('Control+Shift+z');
  await expect(boxes).toHaveCount(boxCount);
  await page.keyboard.press('Control+z');
  await expect(boxes).toHaveCount(boxCount - 1);
  await expect(total(page)).toHaveText(String(boxCount - 1));
  const corrected = await countRows(page, 'Counts as corrected');
  expect(corrected).not.toEqual(facingsBefore);

  // Leaving asks first; declining keeps the screen and the corrections.
  let asked = '';
  page.once('dialog', (d) => {
    asked = d.message();
    void d.dismiss();
  });
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Visits' }).click();
  await expect.poll(() => asked).toContain('unsaved corrections');
  await expect(page.getByRole('heading', { name: 'Visit at Store 7' })).toBeVisible();
  expect(page.url()).toContain(`#/visits/${visit}`);
  await expect(total(page)).toHaveText(String(boxCount - 1));

  // 5. Save: the server has the corrected boxes; the reports are computed again from them.
  await page.getByRole('button', { name: 'Save corrections' }).click();
  await expect(page.getByText('Corrections saved: the reports are being computed again.')).toBeVisible();
  await expect(page.getByText('No unsaved corrections')).toBeVisible();
  const stored = await (await api.get(`/api/v1.5/scenes/${scene}/annotations/`)).json();
  expect(stored.images[0].version).toBe(1);
  expect(stored.images[0].boxes).toHaveLength(boxCount - 1);
  expect(stored.images[0].boxes.filter((b: { sku_id: string | null }) => b.sku_id === 'cream')).toHaveLength(1);

  // The box named Cream Soda was learnt: a reference of that SKU, cut from the photo, from a review.
  const learnt = (await (await api.get('/api/v1.5/sku/cream/images/')).json()).results.filter((r: { source: string }) => r.source === 'review');
  expect(learnt).toHaveLength(1);

  await page.getByRole('button', { name: 'Done reviewing' }).click();
  await expect(page.getByText('All reports ready')).toBeVisible({ timeout: 120_000 });
  await expect.poll(() => countRows(page, 'Facing counts'), { timeout: 120_000 }).toEqual(corrected);
  // One correctly placed face fewer (a product relabelled, one removed): the compliance drops.
  await expect(score).not.toHaveText(scoreBefore!);
  expect(parseFloat((await score.textContent())!)).toBeLessThan(parseFloat(scoreBefore!));
  await screenshot(page, 'review-saved');

  // 6. Someone else saves first: this save is refused with a clear message and a reload.
  await page.getByRole('button', { name: 'Review boxes' }).click();
  await expect(boxes).toHaveCount(boxCount - 1);
  await page.keyboard.press('n');
  await page.keyboard.press('Delete');
  await expect(boxes).toHaveCount(boxCount - 2);
  const other = await api.put(`/api/v1.5/scenes/${scene}/annotations/`, {
    data: { images: [{ image: stored.images[0].image, version: 1, boxes: stored.images[0].boxes.slice(0, 2).map(({ id, x, y, w, h, sku_id }: Record<string, unknown>) => ({ id, x, y, w, h, sku_id })) }] },
  });
  expect(other.status(), await other.text()).toBe(200);
  consoleErrors.allowHttpStatus(409);
  await page.keyboard.press('Control+s');
  const conflict = page.getByRole('alert').filter({ hasText: 'someone else saved corrections' });
  await expect(conflict).toBeVisible();
  await conflict.getByRole('button', { name: 'Reload' }).click();
  await expect(boxes).toHaveCount(2);
  await expect(page.getByText('No unsaved corrections')).toBeVisible();

  // With nothing unsaved, moving to another screen asks nothing (a question would be dismissed here).
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Visits' }).click();
  await expect(page.getByRole('table', { name: 'Visits' }).getByRole('row', { name: /Store 7/ })).toBeVisible();

  // The SKU's screen lists the learnt reference as from a review, its crop shown; it can be removed.
  await page.goto(`${page.url().split('#')[0]}#/catalog/sku/cream`);
  const references = page.getByRole('list', { name: 'Reference images' });
  const fromReview = references.getByRole('listitem').filter({ hasText: 'From a review' });
  await expect(fromReview).toHaveCount(1);
  const crop = fromReview.getByRole('img', { name: /from a review/ });
  await expect(crop).toBeVisible();
  expect(await crop.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([learnt[0].crop.w, learnt[0].crop.h]);
  await fromReview.getByRole('button', { name: /Remove reference image/ }).click();
  await expect(fromReview).toHaveCount(0);
  const left = (await (await api.get('/api/v1.5/sku/cream/images/')).json()).results;
  expect(left.some((r: { source: string }) => r.source === 'review')).toBe(false);
});
