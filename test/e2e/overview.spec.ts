// The supervisors' overview in the browser: figures for a range, its filters (a refused range shows
// the server's message), every kind of figure opening the visits behind it, the charts drawn under
// the app's CSP, the period's CSV download, and the review queue.
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
// @ts-expect-error the built module (this spec runs after the build) has no declarations beside it
import { openDatabase } from '../../dist/main/server/storage/database.js';
import { overviewData, seedOverview } from '../../bench/overview-seed.mjs';
import { expect, screenshot, test } from './fixtures.js';

const RANGE = { date_from: '2026-03-01', date_to: '2026-03-31' };
const q = (extra: Record<string, string> = {}) => new URLSearchParams({ ...RANGE, ...extra }).toString();

test('overview: figures, filters, click-through to the visits, CSV export, review queue', async ({ app: page, api, server, consoleErrors }) => {
  const data = overviewData({ visits: 60, scenesPerVisit: 3, shops: 4, agents: 3, skus: 20, displays: 3, days: 10, seed: 21 });
  const database = await openDatabase(server.dataDir);
  await seedOverview(database.db, data);
  await database.close();
  // CSP violations are logged as console errors (the fixture fails on those) and reported here too.
  await page.addInitScript(() => {
    (window as unknown as { violations: string[] }).violations = [];
    document.addEventListener('securitypolicyviolation', (e) => (window as unknown as { violations: string[] }).violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });

  await page.goto(`/#/overview`);
  await page.reload();
  const filters = page.getByRole('form', { name: 'Overview filters' });
  await filters.getByLabel('From').fill(RANGE.date_from);
  await filters.getByLabel('To').fill(RANGE.date_to);

  const kpis = await (await api.get(`/api/app/v1/overview/kpis/?${q()}`)).json();
  expect(kpis.totals.visits).toBeGreaterThan(40);
  const totals = page.getByLabel('Totals');
  await expect(totals.getByRole('button', { name: /Visits/ })).toContainText(String(kpis.totals.visits));
  await expect(totals.getByRole('button', { name: /On-shelf availability/ })).toContainText(`${kpis.totals.osa.toFixed(1)}%`);
  // Price compliance: a total, a column of the periods and of the stores, a line of the chart.
  expect(kpis.totals.price).not.toBeNull();
  await expect(totals.getByRole('button', { name: /Price compliance/ })).toContainText(`${kpis.totals.price.toFixed(1)}%`);
  const pricedPeriod = kpis.series.find((p: { price: number | null }) => p.price !== null);
  const periodRow = page.getByRole('table', { name: 'KPIs by period' }).getByRole('row').filter({ has: page.getByRole('button', { name: pricedPeriod.period }) });
  await expect(periodRow.getByRole('cell').nth(4)).toHaveText(`${pricedPeriod.price.toFixed(1)}%`);
  await expect(page.locator('.recharts-legend-item', { hasText: 'Price %' })).toBeVisible();
  await expect(page.locator('path.recharts-line-curve[stroke="#ef6c00"]')).toHaveCount(1);
  // The charts are drawn (SVG), with nothing refused by the CSP.
  await expect(page.locator('svg.recharts-surface').first()).toBeVisible();
  await expect(page.getByRole('table', { name: 'KPIs by period' }).getByRole('row')).toHaveCount(kpis.series.length + 1);

  // A period's figure opens its visits.
  const period = kpis.series[2];
  await page.getByRole('table', { name: 'KPIs by period' }).getByRole('button', { name: period.period }).click();
  const behind = page.getByRole('region', { name: `Visits of ${period.period}` });
  await expect(behind.getByText(`${period.visits} visits, latest first.`)).toBeVisible();
  const rows = behind.getByRole('table', { name: 'Visits behind the figure' }).getByRole('row');
  await expect(rows).toHaveCount(period.visits + 1);
  // Each opens its visit's screen.
  const first = (await (await api.get(`/api/app/v1/overview/visits/?${q({ period: period.period })}&limit=1`)).json()).results[0];
  await expect(rows.nth(1).getByRole('link')).toHaveAttribute('href', `#/visits/${first.visit}`);
  await behind.getByRole('button', { name: 'Close' }).click();

  // A store's row opens its visits; the worst store is first.
  const stores = await (await api.get(`/api/app/v1/overview/stores/?${q()}`)).json();
  const storeRows = page.getByRole('table', { name: 'Stores' }).getByRole('row');
  await expect(storeRows).toHaveCount(stores.results.length + 1);
  await expect(storeRows.nth(1)).toContainText(stores.results[0].shop_name);
  const pricedStore = stores.results.findIndex((r: { price: number | null }) => r.price !== null);
  await expect(storeRows.nth(pricedStore + 1).getByRole('cell').nth(4)).toHaveText(`${stores.results[pricedStore].price.toFixed(1)}%`);
  await storeRows.nth(1).getByRole('button').click();
  await expect(page.getByRole('region', { name: `Visits of ${stores.results[0].shop_name}` }).getByText(`${stores.results[0].visits} visits, latest first.`)).toBeVisible();

  // A missing must-have opens the visits where it was missing.
  const missing = await (await api.get(`/api/app/v1/overview/missing/?${q()}`)).json();
  const m = missing.results[0];
  await page.getByRole('table', { name: 'Must-haves missing' }).getByRole('row').nth(1).getByRole('button').click();
  await expect(page.getByRole('region', { name: `Visits of ${m.shop_name} missing ${m.sku_name}` }).getByText(`${m.visits} visits, latest first.`)).toBeVisible();

  // An auditor's row opens their visits.
  const agents = await (await api.get(`/api/app/v1/overview/agents/?${q()}`)).json();
  const a = agents.results.find((r: { agent: string | null }) => r.agent !== null);
  await page.getByRole('table', { name: 'Auditors' }).getByRole('button', { name: a.agent_name ?? a.agent }).click();
  await expect(page.getByRole('region', { name: `Visits of ${a.agent_name ?? a.agent}` }).getByText(`${a.visits} visits, latest first.`)).toBeVisible();

  // Share of shelf: a brand narrows the whole overview to its visits.
  const share = await (await api.get(`/api/app/v1/overview/share/?${q()}`)).json();
  await expect(page.getByRole('table', { name: 'Share of shelf' }).getByRole('row')).toHaveCount(share.results.length + 1);
  await screenshot(page, 'overview');
  const brand = share.results.find((r: { brand: string | null }) => r.brand !== null);
  await page.getByRole('table', { name: 'Share of shelf' }).getByRole('button', { name: brand.brand_name }).click();
  await expect(filters.getByLabel('Brand')).toHaveValue(brand.brand);
  const branded = await (await api.get(`/api/app/v1/overview/kpis/?${q({ brand: brand.brand })}`)).json();
  await expect(totals.getByRole('button', { name: /Visits/ })).toContainText(String(branded.totals.visits));

  // The review filter.
  await filters.getByLabel('Brand').selectOption('');
  await filters.getByLabel('Review').selectOption('unreviewed');
  const unreviewed = await (await api.get(`/api/app/v1/overview/kpis/?${q({ review: 'unreviewed' })}`)).json();
  expect(unreviewed.totals.visits).toBeLessThan(kpis.totals.visits);
  await expect(totals.getByRole('button', { name: /Visits/ })).toContainText(String(unreviewed.totals.visits));

  // The period's CSV: the filtered visits, as the API lists them.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  expect(download.suggestedFilename()).toBe('visits-2026-03-01-2026-03-31.csv');
  const csv = parse(await readFile((await download.path())!, 'utf8')) as string[][];
  expect(csv.length - 1).toBe(unreviewed.totals.visits);

  // A reversed range: the server's 400 names the field, shown beside it.
  consoleErrors.allowHttpStatus(400);
  await filters.getByLabel('To').fill('2026-02-01');
  await expect(filters.getByText(/is before date_from/).first()).toBeVisible();
  await filters.getByLabel('To').fill(RANGE.date_to);

  // The review queue: counts and the visits that most need a person, first.
  await page.getByRole('link', { name: 'Review queue' }).click();
  const queueFilters = page.getByRole('form', { name: 'Overview filters' });
  await queueFilters.getByLabel('From').fill(RANGE.date_from);
  await queueFilters.getByLabel('To').fill(RANGE.date_to);
  const queue = await (await api.get(`/api/app/v1/overview/review_queue/?${q()}&limit=50`)).json();
  await expect(page.getByLabel('Visits to look at')).toContainText(`${queue.count} to look at`);
  await expect(page.getByLabel('Visits to look at')).toContainText(`Unreviewed: ${queue.counts.unreviewed}`);
  // Photos the bay's registration could not join: a reason of their own.
  expect(queue.counts.unjoined_photos).toBeGreaterThan(0);
  await expect(page.getByLabel('Visits to look at')).toContainText(`Photos not joined: ${queue.counts.unjoined_photos}`);
  const queueRows = page.getByRole('table', { name: 'Review queue' }).getByRole('row');
  await expect(queueRows).toHaveCount(Math.min(50, queue.count) + 1);
  await expect(queueRows.nth(1).getByRole('link')).toHaveAttribute('href', `#/visits/${queue.results[0].visit}`);
  await screenshot(page, 'review-queue');

  expect(await page.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([]);
});

test("the app opens on the overview on a supervisor's laptop, on the visits on an auditor's", async ({ page, server, api }) => {
  /** The device role this laptop's sync learnt from the central's last pull (sync_settings), as the engine stores it. */
  const learnt = async (role: 'auditor' | 'supervisor') => {
    const database = await openDatabase(server.dataDir);
    await database.db.deleteFrom('sync_settings').where('name', '=', 'device_role').execute();
    await database.db.insertInto('sync_settings').values({ name: 'device_role', value: role }).execute();
    await database.close();
    expect((await (await api.get('/api/app/v1/sync/status/')).json()).device_role).toBe(role);
  };
  const nav = page.getByRole('navigation', { name: 'Main' });

  // Not syncing yet: the visits, as before.
  await page.goto(`/#token=${encodeURIComponent(server.key)}`);
  await expect(nav.getByRole('link', { name: 'Visits' })).toHaveAttribute('aria-current', 'page');

  await learnt('auditor');
  await page.goto('/');
  await expect(nav.getByRole('link', { name: 'Visits' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('form', { name: 'Overview filters' })).toHaveCount(0);

  await learnt('supervisor');
  await page.goto('/');
  await expect(nav.getByRole('link', { name: 'Overview' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('form', { name: 'Overview filters' })).toBeVisible();
  await expect(page).toHaveURL(/#\/overview$/);
  // An address that names a screen opens that screen, a supervisor's too.
  await page.goto('/#/settings');
  await page.reload();
  await expect(nav.getByRole('link', { name: 'Settings' })).toHaveAttribute('aria-current', 'page');
});
