// The catalog screens on the real server: create, edit, validation errors at the field the API names,
// search, sort and paging.
import { expect, screenshot, test } from './fixtures.js';

test('brands: create, edit, and the API validation message at the Name field', async ({ app: page, consoleErrors }) => {
  await page.getByRole('link', { name: 'Brands' }).click();
  await expect(page.getByRole('heading', { name: 'Brands' })).toBeVisible();
  await expect(page.getByText('No brands yet')).toBeVisible();

  // A blank name: the server answers 400 {"name": ["This field may not be blank."]}.
  consoleErrors.allowHttpStatus(400);
  await page.getByRole('button', { name: 'New brand' }).click();
  const dialog = page.getByRole('dialog', { name: 'New brand' });
  await dialog.getByRole('button', { name: 'Save' }).click();
  const name = dialog.getByRole('textbox', { name: 'Name' });
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(name).toHaveAccessibleDescription('This field may not be blank.');
  await screenshot(page, 'brand-validation');

  await name.fill('Coca-Cola');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  const table = page.getByRole('table', { name: 'Brands' });
  await expect(table.getByRole('row', { name: /Coca-Cola/ })).toBeVisible();

  await table.getByRole('button', { name: 'Edit Coca-Cola' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit brand' });
  await edit.getByRole('textbox', { name: 'Name' }).fill('The Coca-Cola Company');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit).toBeHidden();
  await expect(table.getByRole('cell', { name: 'The Coca-Cola Company', exact: true })).toBeVisible();

  // A reload reads the list from the server again: the edit is stored there.
  await page.reload();
  await expect(page.getByRole('table', { name: 'Brands' }).getByRole('cell', { name: 'The Coca-Cola Company', exact: true })).toBeVisible();
});

test('categories: search, sort and pages over many records', async ({ app: page, api }) => {
  for (let i = 1; i <= 27; i++) {
    const r = await api.post('/api/v1.5/categories/', { data: { name: `Category ${String(i).padStart(2, '0')}` } });
    expect(r.status()).toBe(201);
  }
  await page.getByRole('link', { name: 'Categories' }).click();
  const table = page.getByRole('table', { name: 'Categories' });
  await expect(page.getByText('27 items')).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(21); // header + 20 per page
  await expect(table.getByRole('row').nth(1)).toContainText('Category 01');
  await expect(page.getByText('Page 1 of 2')).toBeVisible();

  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(page.getByText('Page 2 of 2')).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(8);

  await table.getByRole('button', { name: 'Name' }).click(); // already ascending: flips
  await expect(table.getByRole('columnheader', { name: 'Name' })).toHaveAttribute('aria-sort', 'descending');
  await expect(table.getByRole('row').nth(1)).toContainText('Category 27');

  await page.getByRole('searchbox', { name: 'Search categories' }).fill('category 1');
  await expect(page.getByText('10 items')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Categories pages' })).toBeHidden();
  await screenshot(page, 'categories');

  // Sort order and page size are view preferences: kept across a reload.
  await page.getByRole('combobox', { name: 'Rows per page' }).selectOption('10');
  await page.reload();
  await expect(table.getByRole('columnheader', { name: 'Name' })).toHaveAttribute('aria-sort', 'descending');
  await expect(page.getByText('Page 1 of 3')).toBeVisible();
  await expect(table.getByRole('row').nth(1)).toContainText('Category 27');
});

test('SKU: field errors from the API, then create and edit codes, sizes and attributes', async ({ app: page, api, consoleErrors }) => {
  await api.post('/api/v1.5/brands/', { data: { id: 'b-fanta', name: 'Fanta' } });
  await api.post('/api/v1.5/categories/', { data: { id: 'c-soft', name: 'Soft drinks' } });
  await page.getByRole('link', { name: 'SKUs' }).click();
  await page.getByRole('button', { name: 'New SKU' }).click();
  const dialog = page.getByRole('dialog', { name: 'New SKU' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Fanta Orange 1.5 l');
  await dialog.getByRole('combobox', { name: 'Brand' }).selectOption({ label: 'Fanta' });
  await dialog.getByRole('combobox', { name: 'Category' }).selectOption({ label: 'Soft drinks' });
  await dialog.getByRole('textbox', { name: 'Width (mm)' }).fill('ninety');

  consoleErrors.allowHttpStatus(400);
  await dialog.getByRole('button', { name: 'Create SKU' }).click();
  const width = dialog.getByRole('textbox', { name: 'Width (mm)' });
  await expect(width).toHaveAttribute('aria-invalid', 'true');
  await expect(width).toHaveAccessibleDescription(/valid number/i);
  await expect(dialog.getByRole('textbox', { name: 'Name' })).not.toHaveAttribute('aria-invalid', 'true');

  await width.fill('90');
  await dialog.getByRole('textbox', { name: 'Height (mm)' }).fill('330');
  await dialog.getByRole('textbox', { name: 'Customer ID (cid)' }).fill('FANTA-15');
  await dialog.getByRole('textbox', { name: 'EAN-13' }).fill('5449000011527');
  await dialog.getByRole('button', { name: 'Add attribute' }).click();
  await dialog.getByRole('textbox', { name: 'Attribute 1 name' }).fill('flavour');
  await dialog.getByRole('textbox', { name: 'Attribute 1 value' }).fill('orange');
  await dialog.getByRole('button', { name: 'Create SKU' }).click();

  // Created: the SKU page opens.
  await expect(page.getByRole('heading', { name: 'SKU: Fanta Orange 1.5 l' })).toBeVisible();
  const form = page.getByRole('form', { name: 'SKU details' });
  await expect(form.getByRole('textbox', { name: 'EAN-13' })).toHaveValue('5449000011527');
  await expect(form.getByRole('textbox', { name: 'Width (mm)' })).toHaveValue('90');
  await expect(form.getByRole('textbox', { name: 'Attribute 1 value' })).toHaveValue('orange');
  await expect(page.getByText('No reference images yet')).toBeVisible();

  await form.getByRole('textbox', { name: 'Depth (mm)' }).fill('90');
  await form.getByRole('button', { name: 'Save SKU' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  const stored = await (await api.get('/api/v1.5/sku/?cid=FANTA-15')).json();
  expect(stored.results).toHaveLength(1);
  expect(stored.results[0]).toMatchObject({ name: 'Fanta Orange 1.5 l', brand: 'b-fanta', size_z_mm: 90, attributes: { flavour: 'orange' } });
  await screenshot(page, 'sku-page');

  await page.getByRole('link', { name: 'SKUs', exact: true }).first().click();
  await expect(page.getByRole('table', { name: 'SKUs' }).getByRole('row', { name: /Fanta Orange/ })).toContainText('Soft drinks');
});

test('offline: lists stay readable from the saved copy, and the status bar says the server is unreachable', async ({
  app: page,
  api,
  context,
  consoleErrors,
}) => {
  await api.post('/api/v1.5/manufacturers/', { data: { name: 'Hellenic Bottling' } });
  await page.getByRole('link', { name: 'Manufacturers' }).click();
  await expect(page.getByRole('table', { name: 'Manufacturers' }).getByRole('cell', { name: 'Hellenic Bottling', exact: true })).toBeVisible();
  await expect(page.getByRole('contentinfo', { name: 'Status' })).toContainText('Local server connected');

  consoleErrors.allowNetworkFailures();
  await context.setOffline(true);
  await page.getByRole('link', { name: 'Brands' }).click();
  await expect(page.getByRole('alert')).toContainText('cannot be reached');
  await page.getByRole('link', { name: 'Manufacturers' }).click();
  await expect(page.getByText(/Showing the saved copy: The local server cannot be reached/)).toBeVisible();
  await expect(page.getByRole('table', { name: 'Manufacturers' }).getByRole('cell', { name: 'Hellenic Bottling', exact: true })).toBeVisible();
  const status = page.getByRole('contentinfo', { name: 'Status' });
  await expect(status).toContainText('Local server unreachable');
  await expect(status).toContainText('Offline: working locally');
  await screenshot(page, 'offline');

  await context.setOffline(false);
  await page.getByRole('link', { name: 'Brands' }).click();
  await page.getByRole('link', { name: 'Manufacturers' }).click();
  await expect(page.getByText(/Showing the saved copy/)).toBeHidden();
  await expect(status).toContainText('Local server connected');
});

test('keyboard: skip link, dialogs opened, filled, submitted and dismissed without a mouse', async ({ app: page }) => {
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('main')).toBeFocused();

  await page.getByRole('link', { name: 'Manufacturers' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Manufacturers' })).toBeVisible();
  await page.getByRole('button', { name: 'New manufacturer' }).focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'New manufacturer' });
  await expect(dialog.getByRole('textbox', { name: 'Name' })).toBeFocused();
  await page.keyboard.type('Coca-Cola HBC');
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('table', { name: 'Manufacturers' }).getByRole('cell', { name: 'Coca-Cola HBC', exact: true })).toBeVisible();

  await page.getByRole('button', { name: 'Edit Coca-Cola HBC' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog', { name: 'Edit manufacturer' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'Edit manufacturer' })).toBeHidden();
});
