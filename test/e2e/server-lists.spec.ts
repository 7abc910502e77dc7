// Lists that work on the server (issue 26): the SKU screen downloads the page it shows, filters by
// brand and searches names and customer ids through the API's query parameters; the planogram list
// filters by display; the must-have product picker searches the catalog on the server.
import { expect, test } from './fixtures.js';

test('SKUs: one page downloaded, filtered by brand and searched on the server', async ({ app: page, api }) => {
  const skus = Array.from({ length: 130 }, (_, i) => ({
    id: `sku-${i}`, cid: `CID-${String(i).padStart(3, '0')}`, name: `Product ${String(i).padStart(3, '0')}`, brand: i % 2 ? 'odd' : 'even',
  }));
  const imported = await api.post('/api/app/v1/import/', {
    data: { brands: [{ id: 'odd', name: 'Odd brand' }, { id: 'even', name: 'Even brand' }], skus },
  });
  expect(imported.status()).toBe(200);
  const listCalls: URL[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname === '/api/v1.5/sku/') listCalls.push(url);
  });
  await page.getByRole('link', { name: 'SKUs' }).click();
  const table = page.getByRole('table', { name: 'SKUs' });
  await expect(page.getByText('130 items', { exact: true })).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(21);
  // Never the whole catalog: every list call asks for one page.
  expect(listCalls.length).toBeGreaterThan(0);
  for (const url of listCalls) expect(Number(url.searchParams.get('limit'))).toBeLessThanOrEqual(100);

  await page.getByRole('combobox', { name: 'Brand filter' }).selectOption({ label: 'Odd brand' });
  await expect(page.getByText('65 items', { exact: true })).toBeVisible();
  expect(listCalls.at(-1)!.searchParams.get('brand')).toBe('odd');

  await page.getByRole('searchbox', { name: 'Search skus' }).fill('CID-12');
  await expect(page.getByText('5 items', { exact: true })).toBeVisible(); // CID-121, 123, 125, 127, 129 of the odd brand
  expect(listCalls.at(-1)!.searchParams.get('search')).toBe('CID-12');
  await table.getByRole('button', { name: 'Name' }).click();
  await expect(table.getByRole('row').nth(1)).toContainText('Product 129');
  expect(listCalls.at(-1)!.searchParams.get('ordering')).toBe('-name');
});

test('planograms filtered by display; the must-have picker searches the catalog', async ({ app: page, api }) => {
  const imported = await api.post('/api/app/v1/import/', {
    data: {
      skus: Array.from({ length: 80 }, (_, i) => ({ id: `s${i}`, name: `Item ${String(i).padStart(2, '0')}` })).concat([{ id: 'rare', name: 'Rare mango juice' }]),
      displays: [{ id: 'd1', name: 'Bay one' }, { id: 'd2', name: 'Bay two' }],
      planograms: [{ id: 'p1', name: 'First plan', display: 'd1' }, { id: 'p2', name: 'Second plan', display: 'd2' }],
      mhls: [{ id: 'm1', name: 'Core', display: 'd1' }],
    },
  });
  expect(imported.status()).toBe(200);
  await page.getByRole('link', { name: 'Displays' }).click();
  const planograms = page.getByRole('table', { name: 'Planograms' });
  await expect(planograms.getByRole('row')).toHaveCount(3);
  await page.getByRole('combobox', { name: 'Planograms of display' }).selectOption({ label: 'Bay two' });
  await expect(planograms.getByRole('row')).toHaveCount(2);
  await expect(planograms.getByRole('row').nth(1)).toContainText('Second plan');

  await page.goto('/#/mhl/m1');
  await page.getByRole('button', { name: 'Add product' }).click();
  const dialog = page.getByRole('dialog');
  // "Rare mango juice" sorts after the first page of the catalog: only a server search finds it.
  await dialog.getByRole('searchbox', { name: 'Find product' }).fill('mango');
  await dialog.getByRole('combobox', { name: 'Product', exact: true }).selectOption({ label: 'Rare mango juice' });
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('table', { name: 'Must-have products' })).toContainText('Rare mango juice');
});
