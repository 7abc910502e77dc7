// When recognition itself fails (here: the detector model cannot be loaded), the visit page says so
// with the server's message, and does not pretend the reports are ready.
import path from 'node:path';
import { DATA, expect, screenshot, test } from './fixtures.js';

test.use({ serverEnv: { SHELF_DETECTOR_MODEL: '/nonexistent/shelf-detector.onnx' } });

test('a failed recognition shows each report failed, with the reason', async ({ app: page }) => {
  await page.getByRole('link', { name: 'New visit' }).click();
  await page.getByRole('textbox', { name: 'Shop' }).fill('Store 3');
  // A sharp photo: its quality checks pass, so nothing is asked before recognition starts.
  await page.getByLabel('Add shelf photos: choose files').setInputFiles(path.join(DATA, 'shelf-photos', 'test_1347.jpg'));
  await expect(page.getByLabel('Quality of test_1347.jpg').getByRole('status')).toHaveText('Fine');
  await page.getByRole('button', { name: 'Start recognition' }).click();
  await expect(page.getByRole('heading', { name: 'Visit at Store 3' })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText(/Recognition finished: 0 reports ready, \d failed/)).toBeVisible({ timeout: 180_000 });
  const alert = page.getByRole('alert').filter({ hasText: 'Facing count failed:' });
  await expect(alert).toBeVisible();
  // The reason is the server's, not a generic one.
  await expect(alert).not.toHaveText('Facing count failed: unknown error');
  await expect(page.getByText('All reports ready')).toHaveCount(0);
  await screenshot(page, 'recognition-failed');
});
