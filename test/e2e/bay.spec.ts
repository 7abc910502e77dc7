// The visit screen of a bay: a scene of three photos, two joined into one bay and one that could not
// be joined, with its REALOGRAM and PANORAMA written as the job writes them. The screen says which
// photos were joined, says in words that photo 3 could not be joined (and is counted on its own),
// draws a product seen in both joined photos dotted where it was not counted, and the panorama says
// it marks the bay's products once.
import sharp from 'sharp';
import type { APIRequestContext } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { writeFinishedReports } from './finishedReports.js';

async function photo(api: APIRequestContext, shade: number): Promise<{ id: string; url: string }> {
  const buffer = await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: shade, g: 120, b: 90 } } }).jpeg().toBuffer();
  const res = await api.post('/api/v1.5/uploads/', { multipart: { datafile: { name: `p${shade}.jpg`, mimeType: 'image/jpeg', buffer } } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as { id: string; url: string };
}

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
        annotations: [box(100, { facing: 0, counted: true }), box(340, { facing: 1, counted: true })] },
      { image: b, width: 400, height: 300, joined: true, rack_index: 0, transform: [1, 0, 300, 0, 1, 0, 0, 0, 1], join_message: null, shelf_annotations: [],
        annotations: [box(40, { facing: 1, counted: false }), box(200, { facing: 2, counted: true })] },
      { image: c, width: 400, height: 300, joined: false, rack_index: 1, transform: null, join_message: message, shelf_annotations: [], annotations: [box(200)] },
    ],
    PANORAMA: { upload: a, url: pa.url, width: 700, height: 300, images: [a, b, c], stitched: false, boxes: 3,
      bay: { width: 700, height: 300, joined: [a, b], not_joined: [{ image: c, reason: 'no_overlap', message }] } },
  });
  await page.goto('/#/visits/bay-visit');
  await expect(page.getByText('Photos 1, 2 were joined into one bay')).toBeVisible();
  await expect(page.getByRole('alert').filter({ hasText: message })).toContainText('It is counted on its own.');
  await expect(page.getByText('Photo 2: 2 products found, 2 unknown, 1 counted in another photo of the bay')).toBeVisible();
  const photo2 = page.getByRole('group', { name: 'Products found on photo 2' });
  await expect(photo2.getByRole('button', { name: /counted in another photo/ })).toHaveCount(1);
  await expect(page.getByRole('group', { name: 'Products found on photo 1' }).getByRole('button', { name: /counted in another photo/ })).toHaveCount(0);
  await expect(page.getByText('3 products of the bay marked, each once')).toBeVisible();
});
