// Lists that work on the server: the SKU screen downloads the page it shows, filters by
// brand and searches names and customer ids through the API's query parameters; the planogram list
// filters by display; the must-have product picker searches the catalog on the server; the displays
// screen downloads one page of each list and names what its rows refer to by id; the visit screens
// page, search and look up by id, never downloading a whole list.
import { expect, test } from './fixtures.js';
import { writeFinishedReports } from './finishedReports.js';

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

test('displays screen: at most one page of displays, planograms and must-have lists; names by id', async ({ app: page, api }) => {
  const pad = (i: number) => String(i).padStart(4, '0');
  // More of each than one page of any list (the old screen downloaded all three lists, 500 at a time).
  const imported = await api.post('/api/app/v1/import/', {
    data: {
      displays: Array.from({ length: 150 }, (_, i) => ({ id: `display-${i}`, name: `Display ${pad(i)}` })),
      planograms: Array.from({ length: 130 }, (_, i) => ({ id: `planogram-${i}`, name: `Plan ${pad(i)}`, display: `display-${i}` })),
      mhls: Array.from({ length: 120 }, (_, i) => ({ id: `mhl-${i}`, name: `List ${pad(i)}`, display: `display-${i}` })),
    },
  });
  expect(imported.status()).toBe(200);
  // Every record of each list that reached the page, by list.
  const received: Record<string, number> = {};
  const requests: string[] = [];
  // The handlers' bodies are read asynchronously: each one's promise is kept and awaited before counting.
  const reading: Array<Promise<void>> = [];
  page.on('response', (response) => {
    const url = new URL(response.url());
    const list = /^\/api\/v1\.5\/(displays|planograms|mhl)\/$/.exec(url.pathname)?.[1];
    if (!list) return;
    requests.push(`${url.pathname}${url.search}`);
    reading.push(
      response.json().then((body) => {
        if (!Array.isArray(body?.results)) throw new Error(`${url.pathname}${url.search}: no results list`);
        received[list] = (received[list] ?? 0) + body.results.length;
      }),
    );
  });
  await page.getByRole('link', { name: 'Displays' }).click();
  const displays = page.getByRole('table', { name: 'Displays' });
  const planograms = page.getByRole('table', { name: 'Planograms' });
  const mhls = page.getByRole('table', { name: 'Must-have lists' });
  // Each row names what it refers to (looked up by id once the rows are up).
  await expect(displays.getByRole('row').nth(1)).toContainText('Display 0000');
  await expect(displays.getByRole('row').nth(1).getByRole('link', { name: 'Plan 0000' })).toBeVisible();
  await expect(displays.getByRole('row').nth(1).getByRole('link', { name: 'List 0000' })).toBeVisible();
  await expect(planograms.getByRole('row').nth(1)).toContainText('Display 0000');
  await expect(mhls.getByRole('row').nth(1)).toContainText('Display 0000');
  await expect(page.getByRole('combobox', { name: 'Planograms of display' }).getByRole('option', { name: 'Display 0001' })).toBeAttached();
  await page.waitForLoadState('networkidle');
  await Promise.all(reading);
  for (const list of ['displays', 'planograms', 'mhl']) {
    expect(received[list], `${list}: ${requests.join(' ')}`).toBeGreaterThan(0);
    expect(received[list], `${list}: ${requests.join(' ')}`).toBeLessThanOrEqual(100);
  }

  // A display far beyond the first page of the filter's choices: the filter searches the server.
  await page.getByRole('searchbox', { name: 'Find planograms of display' }).fill('0129');
  await page.getByRole('combobox', { name: 'Planograms of display' }).selectOption({ label: 'Display 0129' });
  await expect(planograms.getByRole('row')).toHaveCount(2);
  await expect(planograms.getByRole('row').nth(1)).toContainText('Plan 0129');
  await expect(planograms.getByRole('row').nth(1)).toContainText('Display 0129');
});

test('visit screens: the list pages, displays are searched, a visit names its SKUs by id; no whole list downloaded', async ({ app: page, api, server }) => {
  const pad = (i: number) => String(i).padStart(4, '0');
  // More SKUs, displays and visits than one page of any list (the old screens walked them all, 500 at a time).
  const imported = await api.post('/api/app/v1/import/', {
    data: {
      skus: Array.from({ length: 1200 }, (_, i) => ({ id: `sku-${i}`, name: `Product ${pad(i)}` })),
      displays: Array.from({ length: 150 }, (_, i) => ({ id: `display-${i}`, name: `Display ${pad(i)}` })),
    },
  });
  expect(imported.status()).toBe(200);
  for (let i = 0; i < 130; i += 10) {
    const batch = Array.from({ length: 10 }, (_, k) => i + k).map((n) =>
      api.post('/api/v1.5/visits/', { data: { id: `visit-${pad(n)}`, shop: `shop-${n % 7}`, agent: `agent-${n % 3}`, started_date: new Date(Date.UTC(2026, 0, 1, n)).toISOString() } }),
    );
    for (const r of await Promise.all(batch)) expect(r.status()).toBe(201);
  }
  writeFinishedReports(server.dataDir, 'visit-0129', {
    FACING_COUNT: [{ sku_id: 'sku-1150', count: 3 }, { sku_id: 'sku-7', count: 1 }, { sku_id: null, count: 2 }],
  });

  // Every list request of the screens, with the number of records it brought back.
  const lists: Array<{ url: URL; results?: number }> = [];
  // Each handler's body read, kept so that a check awaits every one before it counts.
  const reading: Array<Promise<void>> = [];
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (!url.pathname.startsWith('/api/') || !url.searchParams.has('limit')) return;
    const entry: { url: URL; results?: number } = { url };
    lists.push(entry);
    reading.push(
      response.json().then(
        (body) => void (entry.results = Array.isArray(body?.results) ? body.results.length : undefined),
        () => undefined, // a response the page dropped (navigated away): its limit is still checked
      ),
    );
  });

  const expectNoWholeList = async () => {
    await Promise.all(reading);
    for (const l of lists) {
      // Lists narrowed to one parent (a visit's reports, the Data API's row of this visit, a scene's
      // corrections) may ask for all of it.
      const scoped = ['visit', 'cid'].some((p) => l.url.searchParams.has(p)) || /^\/api\/v1\.5\/scenes\/[^/]+\/\w+\/$/.test(l.url.pathname);
      if (!scoped) expect(Number(l.url.searchParams.get('limit')), `${l.url.pathname}${l.url.search}`).toBeLessThanOrEqual(100);
      expect(l.results ?? 0, `${l.url.pathname}${l.url.search}`).toBeLessThanOrEqual(100);
    }
  };

  await page.reload();
  const visits = page.getByRole('table', { name: 'Visits' });
  await expect(page.getByText('130 items', { exact: true })).toBeVisible();
  await expect(visits.getByRole('row')).toHaveCount(21);
  await expect(visits.getByRole('row').nth(1)).toContainText('agent-0'); // visit 129, newest first
  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(page.getByText('Page 2 of 7')).toBeVisible();
  await expectNoWholeList();

  await page.getByRole('link', { name: 'New visit' }).click();
  const display = page.getByRole('combobox', { name: 'Display' });
  await expect(display.getByRole('option', { name: 'Display 0000' })).toBeAttached();
  await expectNoWholeList();
  // "Display 0149" sorts after the first page of displays: only a server search finds it.
  await page.getByRole('searchbox', { name: 'Find display' }).fill('0149');
  await display.selectOption({ label: 'Display 0149' });
  await expect(display).toHaveValue('display-149');

  await page.goto('/#/visits/visit-0129');
  const facings = page.getByRole('table', { name: 'Facing counts' });
  // sku-1150 is far beyond the catalog's first page: its name came by id.
  await expect(facings).toContainText('Product 1150');
  await expect(facings).toContainText('Product 0007');
  await expect(facings).toContainText('Unknown products');

  const skuLists = lists.filter((l) => l.url.pathname === '/api/v1.5/sku/');
  expect(skuLists.length).toBeGreaterThan(0);
  await expectNoWholeList();
  // The SKUs asked for are the ones named (by id) or a search's first page, never the catalog.
  for (const l of skuLists) expect(l.url.searchParams.get('id__in') ?? l.url.searchParams.get('search') ?? l.url.searchParams.get('ordering')).toBeTruthy();
});
