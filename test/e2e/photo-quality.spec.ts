// Photo quality on the screens: a blurred shelf photo is marked retake with the reason as soon as it is
// added, "Retake" replaces it in place, starting with a photo still marked retake asks why, the
// supervisor sees each photo's quality on the visit and filters visits by it, and the thresholds are
// edited in Settings.
import path from 'node:path';
import sharp from 'sharp';
import { DATA, expect, screenshot, test } from './fixtures.js';

test('a blurred photo is flagged and retaken; a retake kept needs a reason; review shows the quality', async ({ app: page }, testInfo) => {
  // A photo with both ends of its bay in view (a row of cooler doors): fine before and after detection.
  const source = path.join(DATA, 'shelf-photos', 'test_2008.jpg');
  const sharpFile = testInfo.outputPath('shelf.jpg');
  const blurredFile = testInfo.outputPath('blurred.jpg');
  const darkFile = testInfo.outputPath('dark.jpg');
  await sharp(source).rotate().resize(1600).jpeg({ quality: 88 }).toFile(sharpFile);
  await sharp(source).rotate().resize(1600).blur(6).jpeg({ quality: 88 }).toFile(blurredFile);
  await sharp(source).rotate().resize(1600).linear(0.3, 0).jpeg({ quality: 88 }).toFile(darkFile);

  await page.getByRole('link', { name: 'Visits' }).click();
  await page.getByRole('link', { name: 'New visit' }).click();
  await page.getByRole('textbox', { name: 'Shop' }).fill('Shop Quality');
  await page.getByLabel('Add shelf photos: choose files').setInputFiles(blurredFile);
  const photos = page.getByRole('list', { name: 'Photos to upload' });
  const blurred = photos.getByLabel('Quality of blurred.jpg');
  await expect(blurred.getByRole('status')).toHaveText('Retake');
  await expect(blurred).toContainText('The photo is blurred');
  await screenshot(page, 'photo-quality-retake');

  // Retake: the new photo takes the blurred one's place and is checked in turn.
  await photos.getByTestId('retake-input-blurred.jpg').setInputFiles(sharpFile);
  await expect(photos.getByRole('img', { name: 'Photo 1: shelf.jpg' })).toBeVisible();
  await expect(photos.getByLabel('Quality of shelf.jpg').getByRole('status')).toHaveText('Fine');
  await expect(photos.getByRole('listitem')).toHaveCount(1);

  // A dark photo kept as it is: starting asks why.
  await page.getByLabel('Add shelf photos: choose files').setInputFiles(darkFile);
  await expect(photos.getByLabel('Quality of dark.jpg').getByRole('status')).toHaveText('Retake');
  await expect(photos.getByLabel('Quality of dark.jpg')).toContainText('too dark');
  await page.getByRole('button', { name: 'Start recognition' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'One photo is marked retake' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Reason for keeping photos marked retake' }).fill('The aisle lights were off');
  await page.getByRole('button', { name: 'Start recognition' }).click();

  // The visit: each photo's quality for the supervisor.
  await expect(page.getByRole('heading', { name: 'Visit at Shop Quality' })).toBeVisible({ timeout: 60_000 });
  const quality = page.getByRole('region', { name: 'Photo quality' });
  await expect(quality.getByLabel('Quality of photo 1').getByRole('status')).toHaveText('Fine', { timeout: 30_000 });
  await expect(quality.getByLabel('Quality of photo 2').getByRole('status')).toHaveText('Retake');
  await screenshot(page, 'photo-quality-review');

  // The supervisor's list: visits filtered by the worst mark of their photos.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Visits' }).click();
  const filters = page.getByRole('form', { name: 'Filter visits' });
  const table = page.getByRole('table', { name: 'Visits' });
  await filters.getByRole('combobox', { name: 'Photo quality' }).selectOption('retake');
  await expect(table.getByRole('row', { name: /Shop Quality/ })).toBeVisible();
  await filters.getByRole('combobox', { name: 'Photo quality' }).selectOption('fine');
  await expect(page.getByText('No visit matches these filters.')).toBeVisible();
});

test('settings: the thresholds are shown, saved, and a value out of range is refused under its field', async ({ app: page, consoleErrors }) => {
  // The refused save is a 400 by design; the browser logs it.
  consoleErrors.allowHttpStatus(400);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  const form = page.getByRole('form', { name: 'Photo quality thresholds' });
  const tilt = form.getByRole('textbox', { name: 'Greatest tilt (degrees)' });
  await expect(tilt).not.toHaveValue('');
  await tilt.fill('90');
  await form.getByRole('button', { name: 'Save thresholds' }).click();
  await expect(form.getByText('Ensure this value is less than or equal to 45.')).toBeVisible();
  await tilt.fill('4');
  await form.getByRole('button', { name: 'Save thresholds' }).click();
  await expect(form.getByRole('status').filter({ hasText: 'Thresholds saved.' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('form', { name: 'Photo quality thresholds' }).getByRole('textbox', { name: 'Greatest tilt (degrees)' })).toHaveValue('4');
});
