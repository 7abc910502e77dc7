// Settings: installation details and API keys (created, copied once, used, revoked).
import { expect, screenshot, test } from './fixtures.js';

test('shows the data folder and version, creates a key shown once, and revokes it', async ({ app: page, server, context, playwright }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
  await expect(page.getByText(server.dataDir)).toBeVisible();
  await expect(page.getByRole('definition').filter({ hasText: /^0\.1\.0$/ })).toBeVisible();

  await page.getByRole('textbox', { name: 'Key name' }).fill('Shop ERP');
  await page.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByRole('region', { name: 'New API key' });
  await expect(shown).toContainText('not shown again');
  const key = (await shown.getByLabel('API key value').textContent())!.trim();
  expect(key.length).toBeGreaterThan(20);
  await shown.getByRole('button', { name: 'Copy key' }).click();
  await expect(shown.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await screenshot(page, 'settings');

  const keys = page.getByRole('table', { name: 'API keys' });
  await expect(keys.getByRole('row', { name: /Shop ERP/ })).toBeVisible();
  await shown.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('region', { name: 'New API key' })).toBeHidden();
  // Shown once: the list never carries the key itself.
  await expect(page.getByText(key)).toHaveCount(0);

  const integration = await playwright.request.newContext({ baseURL: server.url, extraHTTPHeaders: { Authorization: `Token ${key}` } });
  expect((await integration.get('/api/v1.5/brands/')).status()).toBe(200);

  await keys.getByRole('button', { name: 'Revoke key Shop ERP' }).click();
  await expect(keys.getByRole('row', { name: /Shop ERP/ })).toContainText('Revoked');
  expect((await integration.get('/api/v1.5/brands/')).status()).toBe(401);
  await integration.dispose();
});

test('asks for an API key when the page has none, and says when one is rejected', async ({ page, server, consoleErrors }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Shelf Audit' })).toBeVisible();
  consoleErrors.allowHttpStatus(401);
  await page.getByLabel('API key').fill('not-a-key');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByText('This key was not accepted')).toBeVisible();
  await page.getByLabel('API key').fill(server.key);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  // Kept for the session: a reload does not ask again, and the key is not in the address bar.
  await page.reload();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  expect(page.url()).not.toContain(server.key);
});
