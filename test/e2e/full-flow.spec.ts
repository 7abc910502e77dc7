// The whole audit through the screens, on the real server and the real model: a catalog with
// reference images, a planogram tied to a display, a visit with a shelf photo, recognition, and what
// the reviewer sees and sends back.
import { expect, screenshot, test } from './fixtures.js';
import { composeShelf, referenceImages } from './shelfPhoto.js';

const PRODUCTS = [
  { crops: 'cocacola_pet', name: 'Coca-Cola 0.5 PET' },
  { crops: 'sprite_pet', name: 'Sprite 0.5 PET' },
  { crops: 'fanta_pet', name: 'Fanta Orange 0.5 PET' },
  { crops: 'cream_soda_pet', name: 'Cream Soda 0.5 PET' },
];

test.setTimeout(600_000);

test('catalog, planogram, display, visit with a real photo, recognition, boxes, counts and compliance', async ({ app: page, api }, testInfo) => {
  const nav = page.getByRole('navigation', { name: 'Main' });
  // Catalog: a brand, then each SKU with its reference images added on the SKU page.
  await nav.getByRole('link', { name: 'Brands' }).click();
  await page.getByRole('button', { name: 'New brand' }).click();
  await page.getByRole('dialog', { name: 'New brand' }).getByRole('textbox', { name: 'Name' }).fill('The Coca-Cola Company');
  await page.getByRole('dialog', { name: 'New brand' }).getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('table', { name: 'Brands' }).getByRole('cell', { name: 'The Coca-Cola Company', exact: true })).toBeVisible();

  for (const product of PRODUCTS) {
    await nav.getByRole('link', { name: 'SKUs' }).click();
    await page.getByRole('button', { name: 'New SKU' }).click();
    const dialog = page.getByRole('dialog', { name: 'New SKU' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill(product.name);
    await dialog.getByRole('combobox', { name: 'Brand' }).selectOption({ label: 'The Coca-Cola Company' });
    await dialog.getByRole('button', { name: 'Create SKU' }).click();
    await expect(page.getByRole('heading', { name: `SKU: ${product.name}` })).toBeVisible();
    await page.getByLabel('Add reference images: choose files').setInputFiles(referenceImages(product.crops));
    await expect(page.getByRole('list', { name: 'Reference images' }).getByRole('listitem')).toHaveCount(2, { timeout: 60_000 });
  }
  await screenshot(page, 'full-flow-sku');
  const skus = (await (await api.get('/api/v1.5/sku/')).json()).results as Array<{ id: string; name: string }>;
  const skuId = (name: string) => skus.find((s) => s.name === name)!.id;

  // Remove one reference image and add it back: both ways through the screen.
  await page.getByRole('button', { name: 'Remove reference image 2' }).click();
  await expect(page.getByRole('list', { name: 'Reference images' }).getByRole('listitem')).toHaveCount(1);
  await page.getByLabel('Add reference images: choose files').setInputFiles(referenceImages('cream_soda_pet')[1]);
  await expect(page.getByRole('list', { name: 'Reference images' }).getByRole('listitem')).toHaveCount(2);

  // A display and its planogram: shelf 1 cola x3 and sprite x2, shelf 2 fanta x3 and cream soda x2.
  await nav.getByRole('link', { name: 'Displays & planograms' }).click();
  await page.getByRole('button', { name: 'New display' }).click();
  await page.getByRole('dialog', { name: 'New display' }).getByRole('textbox', { name: 'Name' }).fill('Cold drinks');
  await page.getByRole('dialog', { name: 'New display' }).getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('table', { name: 'Displays' }).getByRole('cell', { name: 'Cold drinks', exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'New planogram' }).click();
  const newPlanogram = page.getByRole('dialog', { name: 'New planogram' });
  await newPlanogram.getByRole('textbox', { name: 'Name' }).fill('Cold drinks standard');
  await newPlanogram.getByRole('combobox', { name: 'Display' }).selectOption({ label: 'Cold drinks' });
  await newPlanogram.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('heading', { name: 'Planogram: Cold drinks standard' })).toBeVisible();
  await page.getByRole('button', { name: 'Add shelf to rack 1' }).click();
  const palette = page.getByRole('complementary', { name: 'Products' });
  const panel = page.getByRole('complementary', { name: 'Selected position' });
  const place = async (name: string, shelf: number, facings: number) => {
    await palette.getByRole('button', { name: new RegExp(name) }).click();
    await page.getByRole('button', { name: `Add ${name} to rack 1 shelf ${shelf}` }).click();
    await panel.getByRole('spinbutton', { name: 'Facings across' }).fill(String(facings));
  };
  await place('Coca-Cola 0.5 PET', 1, 3);
  await place('Sprite 0.5 PET', 1, 2);
  await place('Fanta Orange 0.5 PET', 2, 3);
  await place('Cream Soda 0.5 PET', 2, 2);
  await page.getByRole('button', { name: 'Save planogram' }).click();
  await expect(page.getByText('Planogram saved.')).toBeVisible();
  await screenshot(page, 'full-flow-planogram');

  // A must-have list on the same display: cola (or its alternative, sprite) and cream soda.
  await nav.getByRole('link', { name: 'Displays & planograms' }).click();
  await page.getByRole('button', { name: 'New must-have list' }).click();
  const newMhl = page.getByRole('dialog', { name: 'New must-have list' });
  await newMhl.getByRole('textbox', { name: 'Name' }).fill('Cold drinks must-haves');
  await newMhl.getByRole('combobox', { name: 'Display' }).selectOption({ label: 'Cold drinks' });
  await newMhl.getByRole('button', { name: 'Save' }).click();
  for (const [label, product, alternative] of [
    ['Cola', 'Coca-Cola 0.5 PET', 'Sprite 0.5 PET'],
    ['Cream soda', 'Cream Soda 0.5 PET', null],
  ] as const) {
    await page.getByRole('button', { name: 'Add product' }).click();
    const record = page.getByRole('dialog', { name: 'Add must-have product' });
    await record.getByRole('textbox', { name: 'Name' }).fill(label);
    await record.getByRole('combobox', { name: 'Product' }).selectOption({ label: product });
    if (alternative) await record.getByRole('combobox', { name: 'Alternative 1' }).selectOption({ label: alternative });
    await record.getByRole('button', { name: 'Save' }).click();
    await expect(record).toBeHidden();
  }
  await expect(page.getByRole('table', { name: 'Must-have products' }).getByRole('row')).toHaveCount(3);

  // The visit: the shelf as it really is (no cream soda), photographed.
  const photo = testInfo.outputPath('shelf.jpg');
  await composeShelf(photo, [
    [
      ['cocacola_pet', 3],
      ['sprite_pet', 2],
    ],
    [['fanta_pet', 3]],
  ]);
  await nav.getByRole('link', { name: 'Visits' }).click();
  await page.getByRole('link', { name: 'New visit' }).click();
  await page.getByRole('combobox', { name: 'Display' }).selectOption({ label: 'Cold drinks' });
  await page.getByRole('textbox', { name: 'Shop' }).fill('Store 12');
  await page.getByRole('textbox', { name: 'Agent' }).fill('dana');
  await expect(page.getByText(/planogram compliance, must-have list|must-have list.*planogram compliance/)).toBeVisible();
  await page.getByLabel('Add shelf photos: choose files').setInputFiles(photo);
  await expect(page.getByRole('list', { name: 'Photos to upload' }).getByRole('listitem')).toHaveCount(1);
  // The composed shelf is small (products at the detector's training scale): marked retake, so
  // starting asks why it is kept.
  await expect(page.getByLabel('Quality of shelf.jpg').getByRole('status')).toHaveText('Retake');
  await page.getByRole('button', { name: 'Start recognition' }).click();
  await page.getByRole('textbox', { name: 'Reason for keeping photos marked retake' }).fill('Test shelf');
  await page.getByRole('button', { name: 'Start recognition' }).click();

  // The visit page: progress while recognition runs, then every report, with no refresh.
  await expect(page.getByRole('heading', { name: 'Visit at Store 12' })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole('progressbar', { name: 'Reports ready' })).toBeVisible();
  await expect(page.getByText('All reports ready')).toBeVisible({ timeout: 300_000 });
  await expect(page.getByText('1 photo not uploaded')).toHaveCount(0);

  // Boxes over the photo, each named by its product (or unknown) and score.
  const boxes = page.getByRole('group', { name: 'Products found on photo 1' }).getByRole('button');
  expect(await boxes.count()).toBeGreaterThanOrEqual(4);
  // Boxes overlap where the detector doubts, so the details are checked by keyboard focus (the
  // pointer shows the same panel on hover).
  const first = boxes.first();
  await first.focus();
  const detail = page.getByRole('region', { name: 'Selected product' });
  await expect(detail).toContainText(/detection \d\.\d\d/);
  // The pointer too: over a box that no other box covers at its centre, the panel names it.
  const target = await boxes.evaluateAll((els) => {
    for (const el of els) {
      const r = el.getBoundingClientRect();
      const x = r.left + r.width / 2;
      const y = r.top + r.height / 2;
      if (document.elementFromPoint(x, y)?.closest('g.box') === el) return { x, y, label: el.getAttribute('aria-label') ?? '' };
    }
    return null;
  });
  expect(target).not.toBeNull();
  await page.locator('main').focus();
  await page.mouse.move(target!.x, target!.y);
  await expect(detail).toContainText(target!.label.split(', score')[0]);
  await expect(detail).toContainText(/detection \d\.\d\d/);
  const boxNames = await boxes.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
  expect(boxNames.some((n) => /Coca-Cola 0.5 PET|Sprite 0.5 PET|Fanta Orange 0.5 PET/.test(n))).toBe(true);

  // Facing counts name our products.
  const facings = page.getByRole('table', { name: 'Facing counts' });
  await expect(facings).toBeVisible();
  await expect(facings.getByRole('row', { name: /Coca-Cola 0.5 PET|Sprite 0.5 PET|Fanta Orange 0.5 PET/ }).first()).toBeVisible();

  // Compliance: the planogram's positions expected, coloured by status; cream soda is not there (its
  // place empty, or taken by a neighbour's extra facing).
  await expect(page.getByLabel('Compliance score')).toHaveText(/\d+(\.\d)?%/);
  const expected = page.getByRole('region', { name: 'Expected' });
  await expect(expected.getByRole('listitem')).toHaveCount(4);
  const cream = expected.getByRole('listitem', { name: /Cream Soda 0.5 PET: expected 2, (Missing|Wrong product)/ });
  await expect(cream).toBeVisible();
  await expect(page.getByRole('list', { name: 'Actions required' }).getByRole('listitem').first()).toBeVisible();
  // The must-have checklist: cream soda is not on the shelf.
  const checklist = page.getByRole('list', { name: 'Must-have checklist' });
  await expect(checklist.getByRole('listitem')).toHaveCount(2);
  await expect(checklist.getByRole('listitem').filter({ hasText: 'Cream soda' })).toContainText('missing');
  await screenshot(page, 'full-flow-visit');

  // An out-of-stock reason for the missing product.
  await cream.getByRole('button', { name: 'Out-of-stock reason for Cream Soda 0.5 PET' }).click();
  const oos = page.getByRole('dialog', { name: 'Out-of-stock reason: Cream Soda 0.5 PET' });
  await oos.getByRole('combobox', { name: 'Reason' }).selectOption('On its way from the warehouse');
  await oos.getByRole('button', { name: 'Record reason' }).click();
  await expect(page.getByText('Out-of-stock reason recorded for Cream Soda 0.5 PET.')).toBeVisible();
  const oosStored = (await (await api.get('/api/v1.5/oos_reason/')).json()).results;
  expect(oosStored).toEqual([
    expect.objectContaining({ sku_gid: skuId('Cream Soda 0.5 PET'), reason: 'On its way from the warehouse' }),
  ]);

  // A recognition error from a box (chosen with the keyboard: Enter keeps its details open).
  await first.focus();
  await page.keyboard.press('Enter');
  await expect(first).toHaveAttribute('aria-pressed', 'true');
  await detail.getByRole('button', { name: 'Report recognition error' }).click();
  const report = page.getByRole('dialog', { name: 'Report recognition error' });
  await report.getByRole('combobox', { name: 'The product really is' }).selectOption({ label: 'Sprite 0.5 PET' });
  await report.getByRole('textbox', { name: 'Message' }).fill('Label hidden by a price tag');
  await report.getByRole('button', { name: 'Send report' }).click();
  await expect(page.getByText('Recognition error reported.')).toBeVisible();
  const errorsStored = (await (await api.get('/api/v1.5/recognition_error/')).json()).results;
  expect(errorsStored).toHaveLength(1);
  expect(errorsStored[0].message).toContain('Label hidden by a price tag');
  // The scene the error is about is the one the oos reason went to: the visit's only scene.
  expect(errorsStored[0].scene).toBe(oosStored[0].scene);

  // The visit is new until acknowledged.
  await page.getByRole('button', { name: 'Acknowledge visit' }).click();
  await expect(page.getByText('Visit acknowledged.')).toBeVisible();
});
