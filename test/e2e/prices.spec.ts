// Prices (issue 45) in the browser, on the real server: the Prices screen (add a price, the server's
// refusals shown where they belong, an overlapping price refused, a CSV with bad rows refused whole
// with each row named, a good file imported), and a visit's price compliance: per SKU expected price,
// prices found and status, the tags drawn on the photo, and a tag corrected there changing the report.
import Database from 'better-sqlite3';
import path from 'node:path';
import sharp from 'sharp';
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, screenshot, test } from './fixtures.js';

async function created(res: Awaited<ReturnType<APIRequestContext['post']>>): Promise<Record<string, any>> {
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as Record<string, any>;
}

async function skus(api: APIRequestContext, ids: string[]): Promise<void> {
  for (const id of ids) await created(await api.post('/api/v1.5/sku/', { data: { id, name: `Juice ${id}` } }));
}

async function pickSku(scope: ReturnType<Page['getByRole']>, name: string): Promise<void> {
  await scope.getByRole('searchbox', { name: 'Find sku' }).fill(name);
  const select = scope.getByRole('combobox', { name: 'SKU', exact: true });
  await expect(select.locator('option', { hasText: name })).toHaveCount(1);
  await select.selectOption({ label: name });
}

test('the Prices screen: add, refusals at their fields, overlap, a file refused row by row, a file imported', async ({ app: page, api, consoleErrors }, testInfo) => {
  await skus(api, ['apple', 'orange']);
  await page.getByRole('link', { name: 'Prices' }).click();
  await expect(page.getByRole('heading', { name: 'Prices' })).toBeVisible();
  await expect(page.getByText('No prices yet')).toBeVisible();

  consoleErrors.allowHttpStatus(400);
  await page.getByRole('button', { name: 'New price' }).click();
  let dialog = page.getByRole('dialog', { name: 'New price' });
  await pickSku(dialog, 'Juice apple');
  const price = dialog.getByRole('textbox', { name: 'Price' });
  await price.fill('-1');
  await dialog.getByRole('textbox', { name: 'Valid from' }).fill('2026-01-01');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(price).toHaveAttribute('aria-invalid', 'true');
  await expect(price).toHaveAccessibleDescription('A valid amount is required: at least 0, at most 2 decimals, a point before them ("1.99").');
  // A decimal comma is taken as the point.
  await price.fill('1,99');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  const table = page.getByRole('table', { name: 'Prices' });
  await expect(table.getByRole('row', { name: /Juice apple.*1\.99.*EUR/ })).toBeVisible();

  // The same SKU, every shop, EUR, from a day it already has a price: refused, the reason above the form.
  await page.getByRole('button', { name: 'New price' }).click();
  dialog = page.getByRole('dialog', { name: 'New price' });
  await pickSku(dialog, 'Juice apple');
  await dialog.getByRole('textbox', { name: 'Price' }).fill('2.10');
  await dialog.getByRole('textbox', { name: 'Valid from' }).fill('2026-05-01');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).toContainText('Overlaps price');
  // Its own shop's price is no overlap.
  await dialog.getByRole('textbox', { name: 'Shop' }).fill('shop-7');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(table.getByRole('row', { name: /Juice apple.*2\.10.*shop-7/ })).toBeVisible();

  const bad = testInfo.outputPath('bad-prices.csv');
  const good = testInfo.outputPath('prices.csv');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(bad, 'sku,price,currency,shop,valid_from,valid_to\norange,0.89,EUR,,2026-01-01,\nghost,1.00,EUR,,2026-01-01,\norange,abc,EUR,,2026-02-01,\norange,0.95,EUR,,2026-03-01,\n');
  await page.getByLabel('Import a price list file (CSV or JSON)').setInputFiles(bad);
  const refused = page.getByRole('list', { name: 'Refused rows' });
  await expect(refused.getByRole('listitem')).toHaveText([
    'Line 3: sku: Invalid pk "ghost" - object does not exist.',
    'Line 4: price: A valid amount is required: at least 0, at most 2 decimals, a point before them ("1.99").',
    /^Line 5: Overlaps price ".+" \(0\.89 EUR, 2026-01-01 to open-ended\)/,
  ]);
  await expect(page.getByText('bad-prices.csv was not imported')).toBeVisible();
  await screenshot(page, 'prices-import-refused');
  // Nothing of it landed.
  await expect(table.getByRole('row', { name: /Juice orange/ })).toHaveCount(0);

  await writeFile(good, 'sku,price,currency,shop,valid_from,valid_to\norange,0.89,EUR,,2026-01-01,2026-02-28\norange,0.95,EUR,,2026-03-01,\n');
  await page.getByLabel('Import a price list file (CSV or JSON)').setInputFiles(good);
  await expect(page.getByRole('status').filter({ hasText: 'Imported prices.csv: 2 new prices, 0 updated.' })).toBeVisible();
  await expect(table.getByRole('row', { name: /Juice orange/ })).toHaveCount(2);
  await screenshot(page, 'prices');

  // Deleted after a question that says which price.
  const later = table.getByRole('row', { name: /Juice orange.*0\.95/ });
  await later.getByRole('button', { name: /^Delete price / }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete price' });
  await expect(confirm).toContainText('Delete the price 0.95 EUR from 2026-03-01?');
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(table.getByRole('row', { name: /Juice orange/ })).toHaveCount(1);
  await expect(table.getByRole('row', { name: /Juice orange.*0\.89/ })).toBeVisible();
});

test("a visit's price compliance: expected and found per SKU, tags drawn on the photo, a tag corrected", async ({ app: page, api, server }) => {
  await skus(api, ['a', 'b', 'c', 'd']);
  for (const [sku, price] of [['a', '1.99'], ['b', '2.49'], ['c', '3.00'], ['d', '0.89']])
    await created(await api.post('/api/app/v1/prices/', { data: { sku, price, currency: 'EUR', valid_from: '2026-01-01' } }));
  await created(await api.post('/api/v1.5/visits/', { data: { id: 'visit-prices', shop: 'shop-1', started_date: '2026-03-10T09:00:00Z' } }));
  const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 205, g: 200, b: 190 } } }).jpeg().toBuffer();
  const up = await created(await api.post('/api/v1.5/uploads/', { multipart: { datafile: { name: 'shelf.jpg', mimeType: 'image/jpeg', buffer: jpeg } } }));
  const rec = await created(await api.post('/api/v1.5/recognize/', { data: { images: [up.id], visit: 'visit-prices', report_types: ['FACING_COUNT', 'REALOGRAM', 'PRICE_TAGS', 'PRICE_COMPLIANCE'] } }));
  const waitReady = async (ids: string[]) =>
    expect
      .poll(async () => Promise.all(ids.map(async (id) => (await (await api.get(`/api/v1.5/reports/${id}/`)).json()).status)), { timeout: 60_000 })
      .toEqual(ids.map(() => 'READY'));
  await waitReady(Object.values(rec.reports));

  // The stored analysis as the tag reader leaves it (recognition/analysis.ts): a shelf of a, b, c, d,
  // tags under a (1.99), b (2.50) and c (unreadable); d has none.
  const product = (i: number, sku: string) => ({ x1: 20 + i * 150, y1: 120, x2: 140 + i * 150, y2: 330, score: 0.9, sku_id: sku, sku_score: 0.9, rack_index: 0, shelf_index: 0, position: i });
  const tag = (i: number, text: string, reading: unknown) => ({ x1: 40 + i * 150, y1: 340, x2: 120 + i * 150, y2: 380, score: 0.8, text, reading, read_score: 0.9, ean: null, product_index: i, sku_id: ['a', 'b', 'c'][i], shelf_index: 0 });
  const read = (hundredths: number) => ({ status: 'read', price: { hundredths, currency: 'EUR' }, promotion: null, unitPrice: null });
  const analysis = {
    images: [{
      image: up.id, width: 640, height: 480,
      products: ['a', 'b', 'c', 'd'].map((s, i) => product(i, s)),
      shelves: [{ x1: 20, y1: 120, x2: 590, y2: 330 }],
      price_tags: [tag(0, '1,99 €', read(199)), tag(1, '2,50 €', read(250)), tag(2, '3 -', { status: 'unreadable', reason: 'no price in the text read', promotion: null, unitPrice: null })],
    }],
    ms: { decode: 0, detect: 0, identify: 0 },
  };
  const db = new Database(path.join(server.dataDir, 'shelf-audit.sqlite'));
  try {
    db.prepare('UPDATE scenes SET analysis = ? WHERE id = ?').run(JSON.stringify(analysis), rec.scene);
  } finally {
    db.close();
  }
  // Saving no correction builds every report again, from the analysis as it now is.
  const rebuilt = await api.put(`/api/v1.5/scenes/${rec.scene}/price_tags/`, { data: { images: [{ image: up.id, version: 0, tags: [] }] } });
  expect(rebuilt.status(), await rebuilt.text()).toBe(200);
  await waitReady(Object.values((await rebuilt.json()).reports));

  await page.goto(`/#/visits/visit-prices`);
  const compliance = page.getByRole('table', { name: 'Price compliance' });
  const statusOf = (sku: string) => compliance.getByRole('row', { name: new RegExp(`^Juice ${sku} `) }).getByRole('cell').last();
  await expect(statusOf('a')).toHaveText('OK');
  await expect(statusOf('b')).toHaveText('Wrong price');
  await expect(statusOf('c')).toHaveText('Unreadable');
  await expect(statusOf('d')).toHaveText('No tag');
  await expect(compliance.getByRole('row', { name: /^Juice b / })).toContainText('2.49 EUR');
  await expect(compliance.getByRole('row', { name: /^Juice b / })).toContainText('2.50 EUR');
  await expect(page.getByText('25% of the SKUs the price list prices show their price (1 of 4)')).toBeVisible();

  // The tags on the photo, each named by what it says; b's is red.
  const tags = page.getByRole('group', { name: 'Price tags on photo 1' });
  await expect(tags.getByRole('button')).toHaveCount(3);
  const bTag = tags.getByRole('button', { name: 'Tag 2: 2.50 EUR, Juice b' });
  await expect(bTag).toHaveAttribute('data-state', 'wrong_price');
  await screenshot(page, 'visit-price-compliance');

  // The supervisor reads the tag again: it says 2.49.
  await bTag.click();
  const dialog = page.getByRole('dialog', { name: 'Correct price tag 2' });
  await dialog.getByRole('textbox', { name: 'Price on the tag' }).fill('2.49');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(statusOf('b')).toHaveText('OK');
  await expect(page.getByText('50% of the SKUs the price list prices show their price (2 of 4)')).toBeVisible();
  await expect(tags.getByRole('button', { name: 'Tag 2: 2.49 EUR, Juice b' })).toHaveAttribute('data-state', 'ok');

  // The boxes' review shows the tags too, under the boxes, as corrected.
  await page.getByRole('button', { name: 'Review boxes' }).click();
  const reviewTags = page.locator('.review').getByRole('group', { name: 'Price tags on photo 1' });
  await expect(reviewTags.getByRole('img')).toHaveCount(3);
  await expect(reviewTags.getByRole('img', { name: 'Tag 2: 2.49' })).toBeVisible();
});
