// Displays, the visual planogram editor and must-have lists on the real server.
import { expect, screenshot, test } from './fixtures.js';

test('build a planogram for a display by keyboard and by drag and drop, then a must-have list', async ({ app: page, api }) => {
  for (const [id, name] of [
    ['sku-cola', 'Coca-Cola 0.33 can'],
    ['sku-sprite', 'Sprite 0.5 PET'],
    ['sku-fanta', 'Fanta 0.5 PET'],
    ['sku-zero', 'Coca-Cola Zero can'],
  ])
    expect((await api.post('/api/v1.5/sku/', { data: { id, name } })).status()).toBe(201);

  await page.getByRole('link', { name: 'Displays & planograms' }).click();
  await expect(page.getByText('No displays yet')).toBeVisible();
  await page.getByRole('button', { name: 'New display' }).click();
  let dialog = page.getByRole('dialog', { name: 'New display' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Soft drinks bay 3');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('table', { name: 'Displays' }).getByRole('cell', { name: 'Soft drinks bay 3', exact: true })).toBeVisible();

  await page.getByRole('button', { name: 'New planogram' }).click();
  dialog = page.getByRole('dialog', { name: 'New planogram' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Bay 3 summer');
  await dialog.getByRole('combobox', { name: 'Display' }).selectOption({ label: 'Soft drinks bay 3' });
  await dialog.getByRole('button', { name: 'Save' }).click();

  // The editor opens on the new, empty planogram.
  await expect(page.getByRole('heading', { name: 'Planogram: Bay 3 summer' })).toBeVisible();
  await expect(page.getByText('Display: Soft drinks bay 3')).toBeVisible();
  const shelf1 = page.getByRole('list', { name: 'Rack 1 shelf 1' });
  await expect(shelf1.getByText('Empty shelf')).toBeVisible();

  // Keyboard path: pick a product, add it to a shelf.
  const palette = page.getByRole('complementary', { name: 'Products' });
  await palette.getByRole('button', { name: /Coca-Cola 0.33 can/ }).click();
  await page.getByRole('button', { name: 'Add Coca-Cola 0.33 can to rack 1 shelf 1' }).click();
  await palette.getByRole('button', { name: /Sprite 0.5 PET/ }).click();
  await page.getByRole('button', { name: 'Add Sprite 0.5 PET to rack 1 shelf 1' }).click();
  await expect(shelf1.getByRole('listitem')).toHaveCount(2);

  // The selected position (Sprite, just added): 3 across, 2 stacked, then moved left of the cola.
  const panel = page.getByRole('complementary', { name: 'Selected position' });
  await panel.getByRole('spinbutton', { name: 'Facings across' }).fill('3');
  await panel.getByRole('spinbutton', { name: 'Facings stacked' }).fill('2');
  await panel.getByRole('button', { name: 'Move left' }).click();
  await expect(shelf1.getByRole('listitem').first().getByRole('button')).toHaveAccessibleName('Sprite 0.5 PET, 3 across, 2 stacked');

  // Drag and drop: a second shelf, a product dragged onto it, then one dragged before it.
  await page.getByRole('button', { name: 'Add shelf to rack 1' }).click();
  const shelf2 = page.getByRole('list', { name: 'Rack 1 shelf 2' });
  await palette.getByRole('button', { name: /Fanta 0.5 PET/ }).dragTo(shelf2);
  await expect(shelf2.getByRole('listitem')).toHaveCount(1);
  await palette.getByRole('button', { name: /Coca-Cola Zero can/ }).dragTo(shelf2.getByRole('listitem').first());
  await expect(shelf2.getByRole('listitem').first().getByRole('button')).toHaveAccessibleName(/Coca-Cola Zero can/);
  // Reorder by dragging a placed position onto the end of shelf 1.
  await shelf2.getByRole('listitem').first().dragTo(shelf1.getByText('Sprite 0.5 PET'));
  await expect(shelf1.getByRole('listitem')).toHaveCount(3);
  await expect(shelf2.getByRole('listitem')).toHaveCount(1);

  await expect(page.getByText('Unsaved changes.')).toBeVisible();
  // Unsaved edits survive a reload (kept in IndexedDB), and can be discarded.
  await page.reload();
  await expect(page.getByText('Unsaved changes from an earlier session')).toBeVisible();
  await expect(shelf1.getByRole('listitem')).toHaveCount(3);
  await expect(shelf2.getByRole('listitem')).toHaveCount(1);
  await page.getByRole('button', { name: 'Add shelf to rack 1' }).click();
  await expect(page.getByRole('list', { name: 'Rack 1 shelf 3' })).toBeVisible();
  await page.getByRole('button', { name: 'Remove rack 1 shelf 3' }).click();
  await page.getByRole('button', { name: 'Save planogram' }).click();
  await expect(page.getByText('Planogram saved.')).toBeVisible();
  await screenshot(page, 'planogram-editor');

  const planograms = (await (await api.get('/api/v1.5/planograms/')).json()).results;
  const planogram = planograms.find((p: { name: string }) => p.name === 'Bay 3 summer');
  const records = (await (await api.get('/api/v1.5/planogram_records/?limit=100')).json()).results
    .filter((r: { planogram: string }) => r.planogram === planogram.id)
    .sort((a: { product_index: number }, b: { product_index: number }) => a.product_index - b.product_index)
    .map((r: Record<string, unknown>) => [r.sku, r.rack_index, r.shelf_index, r.product_index, r.facing_x, r.facing_y]);
  expect(records).toEqual([
    ['sku-zero', 0, 0, 0, 1, 1],
    ['sku-sprite', 0, 0, 1, 3, 2],
    ['sku-cola', 0, 0, 2, 1, 1],
    ['sku-fanta', 0, 1, 3, 1, 1],
  ]);

  // A reload shows what the server holds.
  await page.reload();
  await expect(page.getByRole('list', { name: 'Rack 1 shelf 1' }).getByRole('listitem')).toHaveCount(3);
  await expect(page.getByRole('list', { name: 'Rack 1 shelf 2' }).getByRole('listitem')).toHaveCount(1);

  // Remove a position and save: the record is deleted.
  await page.getByRole('list', { name: 'Rack 1 shelf 2' }).getByRole('button', { name: /Fanta/ }).click();
  await page.getByRole('button', { name: 'Remove position' }).click();
  await page.getByRole('button', { name: 'Save planogram' }).click();
  await expect(page.getByText('Planogram saved.')).toBeVisible();
  const after = (await (await api.get('/api/v1.5/planogram_records/?limit=100')).json()).results.filter(
    (r: { planogram: string }) => r.planogram === planogram.id,
  );
  expect(after.map((r: { sku: string }) => r.sku).sort()).toEqual(['sku-cola', 'sku-sprite', 'sku-zero']);

  // The display now shows its planogram; add a must-have list with an alternative.
  await page.getByRole('link', { name: 'Displays', exact: true }).click();
  await expect(page.getByRole('table', { name: 'Displays' }).getByRole('link', { name: 'Bay 3 summer' })).toBeVisible();
  await page.getByRole('button', { name: 'New must-have list' }).click();
  dialog = page.getByRole('dialog', { name: 'New must-have list' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Bay 3 must-haves');
  await dialog.getByRole('combobox', { name: 'Display' }).selectOption({ label: 'Soft drinks bay 3' });
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('heading', { name: 'Must-have list: Bay 3 must-haves' })).toBeVisible();
  await page.getByRole('button', { name: 'Add product' }).click();
  dialog = page.getByRole('dialog', { name: 'Add must-have product' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Cola, any pack');
  await dialog.getByRole('combobox', { name: 'Product' }).selectOption({ label: 'Coca-Cola 0.33 can' });
  await dialog.getByRole('combobox', { name: 'Alternative 1' }).selectOption({ label: 'Coca-Cola Zero can' });
  await dialog.getByRole('button', { name: 'Save' }).click();
  const table = page.getByRole('table', { name: 'Must-have products' });
  await expect(table.getByRole('row', { name: /Cola, any pack/ })).toContainText('Coca-Cola Zero can');
  await screenshot(page, 'mhl');
  const mhlRecords = (await (await api.get('/api/v1.5/mhl_record/')).json()).results;
  expect(mhlRecords).toEqual([expect.objectContaining({ name: 'Cola, any pack', sku: 'sku-cola', sku1: 'sku-zero' })]);
  const display = (await (await api.get('/api/v1.5/displays/')).json()).results[0];
  expect(display).toMatchObject({ planogram: planogram.id });

  await page.getByRole('link', { name: 'Displays', exact: true }).click();
  const displays = page.getByRole('table', { name: 'Displays' });
  await expect(displays.getByRole('link', { name: 'Bay 3 must-haves' })).toBeVisible();
  await screenshot(page, 'displays');
});
