// Opening the app straight on a screen: the first script holds the shell only (the screens' code is
// a chunk of its own, IndexedDB's code another), the screens' chunk loads beside it, and a table's
// first page is asked for at once, not after IndexedDB opens. A table's sort survives a reload.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from './fixtures.js';

/** The first script and what it imports statically, in bytes: what the first paint waits for. */
const FIRST_SCRIPTS_MAX_BYTES = 270 * 1024;

test('the first scripts stay small: the shell, without the screens or IndexedDB', async () => {
  const root = path.resolve('dist/renderer');
  const html = readFileSync(path.join(root, 'index.html'), 'utf8');
  const linked = [...html.matchAll(/<(?:script[^>]* src|link rel="modulepreload"[^>]* href)="\/([^"]+\.js)"/g)].map((m) => m[1]);
  // The screens' chunk is preloaded beside them (fetched and compiled meanwhile), not waited for.
  expect(linked.filter((f) => /\/screenModules-[^/]+\.js$/.test(f))).toHaveLength(1);
  const first = linked.filter((f) => !/\/screenModules-/.test(f));
  expect(first.length).toBeGreaterThan(0);
  const bytes = first.reduce((n, f) => n + statSync(path.join(root, f)).size, 0);
  expect(bytes).toBeLessThan(FIRST_SCRIPTS_MAX_BYTES);
  const code = first.map((f) => readFileSync(path.join(root, f), 'utf8')).join('\n');
  // Dexie's own error name, and a screen's heading text.
  expect(code).not.toContain('DatabaseClosedError');
  expect(code).not.toContain('New SKU');
});

test('a screen opened by its address renders from the screens’ chunk, its sort kept across reloads', async ({ page, server, api }) => {
  for (const name of ['Zeta water', 'Alpha juice']) expect((await api.post('/api/v1.5/sku/', { data: { name } })).status()).toBe(201);
  const scripts: string[] = [];
  const apiCalls: string[] = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.endsWith('.js')) scripts.push(u.pathname);
    if (u.pathname.startsWith('/api/')) apiCalls.push(`${u.pathname}${u.search}`);
  });
  await page.goto(`/#token=${encodeURIComponent(server.key)}`);
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await page.goto('/#/catalog/sku');
  await page.reload();
  const table = page.getByRole('table', { name: 'SKUs' });
  await expect(table.getByRole('row').nth(1)).toContainText('Alpha juice');
  expect(scripts.some((s) => /\/assets\/screenModules-[^/]+\.js$/.test(s))).toBe(true);

  // Sorted the other way, the table comes back so after a reload (kept in localStorage).
  await table.getByRole('button', { name: 'Name' }).click();
  await expect(table.getByRole('columnheader', { name: 'Name' })).toHaveAttribute('aria-sort', 'descending');
  await expect(table.getByRole('row').nth(1)).toContainText('Zeta water');
  apiCalls.length = 0;
  await page.reload();
  await expect(page.getByRole('table', { name: 'SKUs' }).getByRole('columnheader', { name: 'Name' })).toHaveAttribute('aria-sort', 'descending');
  await expect(page.getByRole('table', { name: 'SKUs' }).getByRole('row').nth(1)).toContainText('Zeta water');
  // Read synchronously as the table mounts: one page asked for, the right one.
  expect(apiCalls.filter((c) => c.startsWith('/api/v1.5/sku/?'))).toEqual([expect.stringContaining('ordering=-name')]);

  // Moving to another screen loads no more code: every screen came in that one chunk.
  scripts.length = 0;
  await page.getByRole('link', { name: 'Displays & planograms' }).click();
  await expect(page.getByText('No planograms yet.')).toBeVisible();
  expect(scripts.filter((s) => /screen/i.test(s))).toEqual([]);
});

test('the desktop window’s opening page draws the app’s frame under its own strict policy, with no script', async ({ page }) => {
  // The built module, as the desktop app loads it (this spec runs after the build).
  const { OPENING_PAGE_URL, OPENING_PAGE_CSP } = (await import(path.resolve('dist/main/electron/opening-page.js'))) as {
    OPENING_PAGE_URL: string;
    OPENING_PAGE_CSP: string;
  };
  expect(OPENING_PAGE_CSP).toContain("default-src 'none'");
  expect(OPENING_PAGE_CSP).not.toMatch(/unsafe|script-src/);
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused/.test(m.text())) violations.push(m.text());
  });
  await page.goto(OPENING_PAGE_URL);
  await expect(page.getByRole('heading', { name: 'Shelf Audit' })).toBeVisible();
  await expect(page.getByRole('status')).toHaveText(/Opening your shelf data/);
  // Its one style block is allowed by hash: the header has the app's colour, not the browser's default.
  expect(await page.locator('header').evaluate((h) => getComputedStyle(h).backgroundColor)).toBe('rgb(23, 34, 59)');
  expect(await page.locator('script').count()).toBe(0);
  expect(violations).toEqual([]);
});
