// The visits list and its filters, acknowledging a visit, and the new-visit draft that keeps photos
// on this computer (IndexedDB) until they are uploaded.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DATA, expect, screenshot, test } from './fixtures.js';

test('visits list: filter by new or acknowledged, agent, shop and day; acknowledge a visit', async ({ app: page, api }) => {
  const visits = [
    { id: 'visit-ann-1', shop: 'Shop North', agent: 'ann', started_date: '2026-03-02T09:00:00Z' },
    { id: 'visit-bob-1', shop: 'Shop South', agent: 'bob', started_date: '2026-03-03T12:00:00Z' },
    { id: 'visit-ann-2', shop: 'Shop South', agent: 'ann', started_date: '2026-03-04T12:00:00Z' },
  ];
  for (const v of visits) expect((await api.post('/api/v1.5/visits/', { data: v })).status()).toBe(201);
  const dataVisits = (await (await api.get('/api/data/v1.0/visits/?cid=visit-bob-1')).json()).results;
  expect((await api.post(`/api/data/v1.0/visits/${dataVisits[0].id}/ack/`)).ok()).toBe(true);

  // The page opened before these visits existed: a reload lists them.
  await page.reload();
  const table = page.getByRole('table', { name: 'Visits' });
  await expect(table.getByRole('row')).toHaveCount(4);
  // Newest first.
  await expect(table.getByRole('row').nth(1)).toContainText('Shop South');
  await expect(table.getByRole('row').nth(1)).toContainText('ann');

  const filters = page.getByRole('form', { name: 'Filter visits' });
  await filters.getByRole('combobox', { name: 'Status' }).selectOption('new');
  await expect(table.getByRole('row')).toHaveCount(3);
  await filters.getByRole('combobox', { name: 'Status' }).selectOption('acknowledged');
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table.getByRole('row').nth(1)).toContainText('bob');

  await filters.getByRole('button', { name: 'Clear filters' }).click();
  await filters.getByRole('textbox', { name: 'Agent' }).fill('ann');
  await filters.getByRole('textbox', { name: 'Shop' }).fill('Shop South');
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table.getByRole('row').nth(1)).toContainText('ann');

  await filters.getByRole('button', { name: 'Clear filters' }).click();
  await filters.getByRole('textbox', { name: 'Date' }).fill('2026-03-02');
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table.getByRole('row').nth(1)).toContainText('Shop North');
  await filters.getByRole('textbox', { name: 'Date' }).fill('2025-01-01');
  await expect(page.getByText('No visit matches these filters.')).toBeVisible();
  await filters.getByRole('button', { name: 'Clear filters' }).click();
  await screenshot(page, 'visits');

  // Acknowledge from the visit page; the list then shows it acknowledged.
  await table.getByRole('row', { name: /Shop North/ }).getByRole('link').click();
  await expect(page.getByRole('heading', { name: 'Visit at Shop North' })).toBeVisible();
  await expect(page.getByText('No recognition has been run for this visit.')).toBeVisible();
  await page.getByRole('button', { name: 'Acknowledge visit' }).click();
  await expect(page.getByText('Visit acknowledged.')).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: /^Acknowledged$/ })).toBeVisible();
  const after = (await (await api.get('/api/data/v1.0/visits/?cid=visit-ann-1&is_new=false')).json()).results;
  expect(after).toEqual([expect.objectContaining({ cid: 'visit-ann-1', is_new: false })]);
  await page.getByRole('link', { name: 'Visits', exact: true }).first().click();
  await filters.getByRole('combobox', { name: 'Status' }).selectOption('acknowledged');
  await expect(table.getByRole('row')).toHaveCount(3);
});

test('new visit: a photo added is checked at once and survives a reload until recognition; drag and drop adds more', async ({ app: page }) => {
  await page.getByRole('link', { name: 'Visits' }).click();
  await page.getByRole('link', { name: 'New visit' }).click();
  await expect(page.getByRole('heading', { name: 'New visit' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Shop' }).fill('Shop West');
  await page.getByRole('textbox', { name: 'Agent' }).fill('carol');

  // File picker.
  const shelfPhoto = path.join(DATA, 'shelf-photos', 'test_256.jpg');
  await page.getByLabel('Add shelf photos: choose files').setInputFiles(shelfPhoto);
  const photos = page.getByRole('list', { name: 'Photos to upload' });
  await expect(photos.getByRole('img', { name: 'Photo 1: test_256.jpg' })).toBeVisible();
  // Uploaded at once for its quality checks; the draft keeps it until recognition starts.
  await expect(photos.getByLabel('Quality of test_256.jpg').getByRole('status')).toHaveText(/Fine|Check|Retake/);
  await expect(photos.getByText('uploaded', { exact: true })).toBeVisible();

  await page.reload();
  await expect(photos.getByRole('img', { name: 'Photo 1: test_256.jpg' })).toBeVisible();
  await expect(photos.getByText('uploaded', { exact: true })).toBeVisible();
  await expect(photos.getByLabel('Quality of test_256.jpg').getByRole('status')).toHaveText(/Fine|Check|Retake/);
  await expect(page.getByRole('textbox', { name: 'Shop' })).toHaveValue('Shop West');
  await expect(page.getByRole('textbox', { name: 'Agent' })).toHaveValue('carol');
  // The picture really is the stored file, decoded by the browser.
  const width = await photos.getByRole('img', { name: 'Photo 1: test_256.jpg' }).evaluate((img: HTMLImageElement) => img.naturalWidth);
  expect(width).toBeGreaterThan(1000);

  // Drag and drop of a file onto the drop zone.
  const crop = await readFile(path.join(DATA, 'sku-crops', 'sprite_pet', (await import('node:fs')).readdirSync(path.join(DATA, 'sku-crops', 'sprite_pet'))[0]));
  const dataTransfer = await page.evaluateHandle((b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'dropped.jpg', { type: 'image/jpeg' }));
    return dt;
  }, crop.toString('base64'));
  await page.getByRole('group', { name: 'Add shelf photos' }).dispatchEvent('drop', { dataTransfer });
  await expect(photos.getByRole('img', { name: 'Photo 2: dropped.jpg' })).toBeVisible();
  // A product crop, not a shelf: too small to identify anything, said in words.
  await expect(photos.getByLabel('Quality of dropped.jpg').getByRole('status')).toHaveText('Retake');
  await expect(photos.getByLabel('Quality of dropped.jpg')).toContainText('pixels');
  await screenshot(page, 'new-visit');

  await photos.getByRole('button', { name: 'Remove photo dropped.jpg' }).click();
  // The list drops the photo once IndexedDB has deleted it; reloading before then raced the delete.
  await expect(photos.getByRole('listitem')).toHaveCount(1);
  await page.reload();
  await expect(photos.getByRole('img', { name: 'Photo 1: test_256.jpg' })).toBeVisible();
  await expect(photos.getByRole('listitem')).toHaveCount(1);
});

test('desktop bridge: token and base URL from window.shelfAudit, photos from the system dialog', async ({ page, server }) => {
  const dir = path.join(DATA, 'sku-crops', 'fanta_pet');
  const name = (await import('node:fs')).readdirSync(dir).find((f) => f.endsWith('.jpg'))!;
  const b64 = (await readFile(path.join(dir, name))).toString('base64');
  // What the preload exposes in Electron (preload/bridge-types.ts), stood in for by a page script.
  await page.addInitScript(
    ({ url, key, photo, file }) => {
      const bytes = Uint8Array.from(atob(photo), (c) => c.charCodeAt(0));
      Object.defineProperty(window, 'shelfAudit', {
        value: Object.freeze({
          apiBaseUrl: url,
          token: key,
          appVersion: '0.1.0',
          openPhotos: async () => [{ name: file, type: 'image/jpeg', bytes }],
          revealDataFolder: async () => undefined,
        }),
      });
    },
    { url: server.url, key: server.key, photo: b64, file: name },
  );
  await page.goto('/#/visits/new');
  await expect(page.getByRole('heading', { name: 'New visit' })).toBeVisible();
  await page.getByRole('button', { name: 'Choose files…' }).click();
  await expect(page.getByRole('list', { name: 'Photos to upload' }).getByRole('img', { name: `Photo 1: ${name}` })).toBeVisible();
  // No key was typed and none is in the address bar: the bridge's token is in use.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByText('(used by this window)')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Show folder' })).toBeVisible();
});
