// The visit screen of a bay: a scene of three photos, two joined into one bay and one that could not
// be joined, with its REALOGRAM and PANORAMA written as the job writes them. The screen says which
// photos were joined, says in words that photo 3 could not be joined (and is counted on its own),
// draws a product seen in both joined photos dotted where it was not counted (and says of a box cut by a
// photo's edge where the other photo shows no product that it is counted nowhere), and the panorama says
// it marks the bay's products once; the bay is one picture with each facing once and its counts, the
// single photos a click away.
// Then, on really recognised bays (a composed shelf of catalog products cut into two overlapping photos):
// the review shows the bay's photos side by side with a facing seen in both marked in each, and a
// change of its product applies to both photos and moves the count by one; while photos are added to a
// new visit, each one's overlap with the one before is said.
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { writeFinishedReports } from './finishedReports.js';
import { composeShelf, referenceFiles } from '../recognition/fixtures.js';

async function photo(api: APIRequestContext, shade: number): Promise<{ id: string; url: string }> {
  const buffer = await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: shade, g: 120, b: 90 } } }).jpeg().toBuffer();
  const res = await api.post('/api/v1.5/uploads/', { multipart: { datafile: { name: `p${shade}.jpg`, mimeType: 'image/jpeg', buffer } } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as { id: string; url: string };
}

const inBay = (x: number) => ({ bay_x: x, bay_y: 150, bay_w: 60, bay_h: 120 });
const box = (x: number, extra: Record<string, unknown> = {}) => ({ sku_id: null, name: null, x, y: 150, w: 60, h: 120, score: 0.9, sku_score: 0, shelf_index: 0, ...extra });

test('a bay: joined photos named, a photo not joined said in words, a product of two photos counted once', async ({ app: page, api, server }) => {
  expect((await api.post('/api/v1.5/visits/', { data: { id: 'bay-visit', shop: 'shop-1', agent: 'agent-1', started_date: new Date().toISOString() } })).status()).toBe(201);
  const [pa, pb, pc] = [await photo(api, 40), await photo(api, 90), await photo(api, 140)];
  const [a, b, c] = [pa.id, pb.id, pc.id];
  const message = 'Photo 3 could not be joined to photo 2: take it again with more overlap.';
  writeFinishedReports(server.dataDir, 'bay-visit', {
    FACING_COUNT: [{ sku_id: null, count: 4 }],
    REALOGRAM: [
      { image: a, width: 400, height: 300, joined: true, rack_index: 0, transform: [1, 0, 0, 0, 1, 0, 0, 0, 1], join_message: null, shelf_annotations: [],
        // The last: cut by photo 1's edge where photo 2 shows the place whole with no product, counted nowhere.
        annotations: [box(100, { facing: 0, counted: true, ...inBay(100) }), box(340, { facing: 1, counted: true, ...inBay(340) }), box(385, { w: 30, counted: false })] },
      { image: b, width: 400, height: 300, joined: true, rack_index: 0, transform: [1, 0, 300, 0, 1, 0, 0, 0, 1], join_message: null, shelf_annotations: [],
        annotations: [box(40, { facing: 1, counted: false, ...inBay(340) }), box(200, { facing: 2, counted: true, ...inBay(500) })] },
      { image: c, width: 400, height: 300, joined: false, rack_index: 1, transform: null, join_message: message, shelf_annotations: [], annotations: [box(200)] },
    ],
    PANORAMA: { upload: a, url: pa.url, width: 700, height: 300, images: [a, b, c], stitched: false, boxes: 3,
      bay: { width: 700, height: 300, joined: [a, b], not_joined: [{ image: c, reason: 'no_overlap', message }] } },
  });
  await page.goto('/#/visits/bay-visit');
  await expect(page.getByText('Photos 1, 2 were joined into one bay')).toBeVisible();
  await expect(page.getByRole('alert').filter({ hasText: message })).toContainText('It is counted on its own.');
  // The bay as one picture: the two joined photos, each facing once (3), with the bay's counts.
  await expect(page.getByText('The bay of photos 1, 2: 3 products, each counted once')).toBeVisible();
  await expect(page.getByRole('group', { name: 'Products of the bay' }).getByRole('img')).toHaveCount(3);
  await expect(page.getByRole('list', { name: 'Counts of the bay' })).toHaveText('Unknown products: 3');
  // The single photos a click away.
  await expect(page.getByText('Photo 2: 2 products found, 2 unknown, 1 counted in another photo of the bay')).toBeHidden();
  await page.getByText('The single photos of the bay (2)').click();
  await expect(page.getByText('Photo 2: 2 products found, 2 unknown, 1 counted in another photo of the bay')).toBeVisible();
  const photo2 = page.getByRole('group', { name: 'Products found on photo 2' });
  await expect(photo2.getByRole('button', { name: /counted in another photo/ })).toHaveCount(1);
  await expect(page.getByRole('group', { name: 'Products found on photo 1' }).getByRole('button', { name: /counted in another photo/ })).toHaveCount(0);
  // A box counted nowhere is said so, in the caption and on the box.
  await expect(page.getByText("Photo 1: 3 products found, 3 unknown, 1 cut by the photo's edge not counted (another photo shows the place whole, with no product)")).toBeVisible();
  await expect(page.getByRole('group', { name: 'Products found on photo 1' }).getByRole('button', { name: /not counted: another photo shows this place whole/ })).toHaveCount(1);
  await expect(page.getByText('3 products of the bay marked, each once')).toBeVisible();
});

// Two overlapping photos of a composed shelf of catalog products (the second a little farther away and
// brighter), as the bay API test cuts them: they join, and several products stand in both.
const LAYOUT: Array<Array<[string, number]>> = [
  [['fanta_pet', 4], ['sprite_pet', 3], ['cocacola_pet', 3]],
  [['cream_soda_pet', 4], ['minute_maid', 5]],
];
const NAMES: Record<string, string> = { fanta_pet: 'Fanta', sprite_pet: 'Sprite', cocacola_pet: 'Coca-Cola', cream_soda_pet: 'Cream Soda', minute_maid: 'Minute Maid' };

async function uploadBytes(api: APIRequestContext, buffer: Buffer, name: string): Promise<string> {
  const res = await api.post('/api/v1.5/uploads/', { multipart: { datafile: { name, mimeType: 'image/jpeg', buffer } } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).id;
}

async function bayPhotos(): Promise<[Buffer, Buffer]> {
  const shelf = await composeShelf(LAYOUT);
  const cw = Math.round(shelf.width * 0.62);
  const left = await sharp(shelf.jpeg).extract({ left: 0, top: 0, width: cw, height: shelf.height }).jpeg({ quality: 92 }).toBuffer();
  const right = await sharp(shelf.jpeg)
    .extract({ left: shelf.width - cw, top: 0, width: cw, height: shelf.height })
    .resize(Math.round(cw * 0.9))
    .modulate({ brightness: 1.1 })
    .jpeg({ quality: 92 })
    .toBuffer();
  return [left, right];
}

async function countRows(page: Page, table: string): Promise<Record<string, number>> {
  const rows = await page
    .getByRole('table', { name: table })
    .locator('tbody tr')
    .evaluateAll((rs: HTMLTableRowElement[]) => rs.map((r) => [r.cells[0].textContent!.trim(), parseInt(r.cells[1].textContent!, 10)] as const));
  return Object.fromEntries(rows);
}

test('review on the bay: the photos side by side, a facing of both marked in each, its correction applied once', async ({ app: page, api }) => {
  test.setTimeout(600_000);
  for (const [id, name] of Object.entries(NAMES)) {
    expect((await api.post('/api/v1.5/sku/', { data: { id, name } })).status()).toBe(201);
    for (const file of referenceFiles(id)) {
      const image = await uploadBytes(api, await readFile(file), 'ref.jpg');
      expect((await api.post(`/api/v1.5/sku/${id}/images/`, { data: { image } })).status()).toBe(201);
    }
  }
  expect((await api.post('/api/v1.5/visits/', { data: { id: 'bay-review', shop: 'Store 9', agent: 'dana' } })).status()).toBe(201);
  const [left, right] = await bayPhotos();
  const images = [await uploadBytes(api, left, 'left.jpg'), await uploadBytes(api, right, 'right.jpg')];
  const rec = await api.post('/api/v1.5/recognize/', { data: { images, visit: 'bay-review', report_types: ['FACING_COUNT', 'REALOGRAM'] } });
  expect(rec.status(), await rec.text()).toBe(201);
  const { scene } = await rec.json();

  await page.goto('/#/visits/bay-review');
  await expect(page.getByText('All reports ready')).toBeVisible({ timeout: 300_000 });
  await expect(page.getByText(/^The bay of photos 1, 2: \d+ products, each counted once$/)).toBeVisible();
  const before = await countRows(page, 'Facing counts');

  await page.getByRole('button', { name: 'Review boxes' }).click();
  const bay = page.getByRole('region', { name: 'The bay' });
  await expect(bay).toContainText('Photos 1, 2 were joined into one bay of');
  // A Coca-Cola seen in both photos: marked with one number in each.
  const shared = bay.getByRole('group', { name: 'Bay: photo 1' }).getByRole('button', { name: /^Facing F\d+: Coca-Cola, seen in 2 photos, counted once$/ }).first();
  const mark = (await shared.getAttribute('aria-label'))!.match(/^Facing (F\d+):/)![1];
  const twin = bay.getByRole('group', { name: 'Bay: photo 2' }).getByRole('button', { name: new RegExp(`^Facing ${mark}: Coca-Cola`) });
  await expect(twin).toHaveCount(1);
  await shared.click();
  await expect(shared).toHaveAttribute('aria-pressed', 'true');
  await expect(twin).toHaveAttribute('aria-pressed', 'true');
  const selectedBox = page.getByRole('region', { name: 'Selected box' });
  await expect(selectedBox).toContainText(`Seen in photos 1 and 2 of the bay (facing ${mark}): counted once, and a change applies to each.`);
  // The counts beside the photos are the bay's: what FACING_COUNT said.
  expect(await countRows(page, 'Counts as corrected')).toEqual(before);

  await selectedBox.getByRole('button', { name: 'Change product' }).click();
  const picker = page.getByRole('group', { name: 'Change product' });
  await picker.getByRole('searchbox', { name: 'Find product' }).fill('Sprite');
  await picker.getByRole('button', { name: 'Sprite' }).first().click();
  // Both views relabelled, one facing moved: Sprite one more, Coca-Cola one less.
  await expect(bay.getByRole('group', { name: 'Bay: photo 2' }).getByRole('button', { name: new RegExp(`^Facing ${mark}: Sprite`) })).toHaveCount(1);
  await expect(page.getByText('2 photos with unsaved corrections')).toBeVisible();
  const corrected = await countRows(page, 'Counts as corrected');
  expect(corrected.Sprite).toBe(before.Sprite + 1);
  expect(corrected['Coca-Cola'] ?? 0).toBe(before['Coca-Cola'] - 1);

  await page.getByRole('button', { name: 'Save corrections' }).click();
  await expect(page.getByText('No unsaved corrections')).toBeVisible();
  // Stored per photo, each in its own pixels: both views of the facing say Sprite now.
  const stored = await (await api.get(`/api/v1.5/scenes/${scene}/annotations/`)).json();
  expect(stored.images.map((i: { version: number }) => i.version)).toEqual([1, 1]);
  const facing = stored.bay.facings[Number(mark.slice(1)) - 1];
  expect(facing.sku_id).toBe('sprite_pet');
  expect(facing.views).toHaveLength(2);
  await page.getByRole('button', { name: 'Done reviewing' }).click();
  await expect.poll(() => countRows(page, 'Facing counts'), { timeout: 120_000 }).toEqual(corrected);
});

test("a new visit's photos: each one's overlap with the one before is said as it is added", async ({ app: page }, testInfo) => {
  test.setTimeout(300_000);
  const [left, right] = await bayPhotos();
  const files = [testInfo.outputPath('left.jpg'), testInfo.outputPath('right.jpg'), testInfo.outputPath('blank.jpg')];
  await sharp(left).toFile(files[0]);
  await sharp(right).toFile(files[1]);
  await sharp({ create: { width: 800, height: 600, channels: 3, background: '#7a7a7a' } }).jpeg().toFile(files[2]);
  await page.goto('/#/visits/new');
  await page.getByLabel('Add shelf photos: choose files').setInputFiles(files);
  await expect(page.getByRole('status', { name: 'Overlap of photo 2 with photo 1' })).toHaveText(/^Joined to the photo before: \d+ % overlaps it\.$/, { timeout: 120_000 });
  await expect(page.getByRole('status', { name: 'Overlap of photo 3 with photo 2' })).toHaveText(/too little detail to be joined/, { timeout: 120_000 });
});
