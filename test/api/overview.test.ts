// The overview over HTTP (/api/app/v1/overview/...): bad filters are 400s naming the parameter; the
// figures follow writes (projection and page cache); the period's CSV and XLSX, read back by
// csv-parse and exceljs, equal the API's visits; an empty period is a valid empty file; a cancelled
// export stops reading visits; a visit's PDF, its text extracted by pdfjs, says what the visit found.
import { createRequire } from 'node:module';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFilters } from '../../main/server/domain/overview/filters.js';
import { periodVisits, EXPORT_COLUMNS } from '../../main/server/domain/exports/period.js';
import { factsReady } from '../../main/server/domain/overview/projection.js';
import { overviewData, seedOverview } from '../../bench/overview-seed.mjs';
import { API_KEY, TestServer } from './harness.js';

const RANGE = 'date_from=2026-03-01&date_to=2026-03-31';
let t: TestServer;
const data = overviewData({ visits: 1300, scenesPerVisit: 2, seed: 11 }) as unknown as Record<string, Record<string, any>[]>;

beforeAll(async () => {
  t = await new TestServer().start();
  await seedOverview(t.server.app.db, data);
}, 120_000);
afterAll(() => t.close());

async function allVisits(query: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let url: string | null = `/api/app/v1/overview/visits/?${query}&limit=1000`;
  while (url) {
    const res: { status: number; text: string; body: { results: Record<string, unknown>[]; next: string | null } } = await t.get(url);
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.results);
    url = res.body.next;
  }
  return out;
}

describe('bad input', () => {
  const cases: [string, string][] = [
    ['/api/app/v1/overview/kpis/?date_to=2026-03-31', 'date_from'],
    ['/api/app/v1/overview/kpis/?date_from=2026-03-01', 'date_to'],
    ['/api/app/v1/overview/stores/?date_from=2026-03-31&date_to=2026-03-01', 'date_to'],
    ['/api/app/v1/overview/stores/?date_from=2025-01-01&date_to=2026-03-01', 'date_to'],
    ['/api/app/v1/overview/stores/?date_from=2026-02-30&date_to=2026-03-01', 'date_from'],
    ['/api/app/v1/overview/stores/?date_from=yesterday&date_to=2026-03-01', 'date_from'],
    [`/api/app/v1/overview/missing/?${RANGE}&review=maybe`, 'review'],
    [`/api/app/v1/overview/share/?${RANGE}&display=no-such-display`, 'display'],
    [`/api/app/v1/overview/agents/?${RANGE}&brand=no-such-brand`, 'brand'],
    [`/api/app/v1/overview/agents/?${RANGE}&category=no-such-category`, 'category'],
    [`/api/app/v1/overview/review_queue/?${RANGE}&shop=no-such-shop`, 'shop'],
    [`/api/app/v1/overview/review_queue/?${RANGE}&agent=no-such-agent`, 'agent'],
    [`/api/app/v1/overview/kpis/?${RANGE}&bucket=year`, 'bucket'],
    [`/api/app/v1/overview/visits/?${RANGE}&period=March`, 'period'],
    [`/api/app/v1/overview/visits/?${RANGE}&sku=no-such-sku`, 'sku'],
    [`/api/app/v1/overview/stores/?${RANGE}&limit=0`, 'limit'],
    [`/api/app/v1/overview/export/?${RANGE}&format=pdf`, 'format'],
    [`/api/app/v1/overview/export/?${RANGE}`, 'format'],
    ['/api/app/v1/overview/export/?format=csv', 'date_from'],
  ];
  it.each(cases)('%s: 400 naming %s', async (url, param) => {
    const res: { status: number; text: string; body: { results: Record<string, unknown>[]; next: string | null } } = await t.get(url);
    expect(res.status, res.text).toBe(400);
    expect(Object.keys(res.body)).toContain(param);
  });

  it('an unknown visit has no report: 404', async () => {
    expect((await t.get('/api/app/v1/overview/visits/no-such-visit/report/')).status).toBe(404);
  });
});

describe('figures', () => {
  it('answer every read, page the lists, and follow a visit moved to another shop and an SKU moved to another brand', async () => {
    const kpis = await t.get(`/api/app/v1/overview/kpis/?${RANGE}&bucket=week`);
    expect(kpis.status, kpis.text).toBe(200);
    expect(kpis.body.totals.visits).toBe(data.visits.filter((v) => v.started_date !== null && v.started_date < '2026-04-01').length);
    expect(kpis.body.series.reduce((n: number, p: { visits: number }) => n + p.visits, 0)).toBe(kpis.body.totals.visits);

    const stores = await t.get(`/api/app/v1/overview/stores/?${RANGE}&limit=2`);
    expect(stores.body.count).toBe(6);
    expect(stores.body.results).toHaveLength(2);
    expect(stores.body.next).toContain('offset=2');
    // Worst first.
    const all = await t.get(`/api/app/v1/overview/stores/?${RANGE}`);
    const osa = all.body.results.map((r: { osa: number }) => r.osa);
    expect(osa).toEqual([...osa].sort((a, b) => a - b));
    // Click-through: a shop's visits are as many as its row says.
    const shop = all.body.results[0];
    expect((await allVisits(`${RANGE}&shop=${shop.shop}`)).length).toBe(shop.visits);

    const queue = await t.get(`/api/app/v1/overview/review_queue/?${RANGE}&limit=5`);
    expect(queue.body.results).toHaveLength(5);
    const p = queue.body.results.map((r: { priority: number }) => r.priority);
    expect(p).toEqual([...p].sort((a, b) => b - a));
    expect(queue.body.counts.unreviewed).toBeGreaterThan(0);

    // A period's visits: those of the series point.
    const point = kpis.body.series[1];
    expect((await allVisits(`${RANGE}&period=${point.period}&bucket=week`)).length).toBe(point.visits);

    // A missing must-have's visits.
    const missing = await t.get(`/api/app/v1/overview/missing/?${RANGE}&limit=1`);
    const m = missing.body.results[0];
    expect((await allVisits(`${RANGE}&shop=${m.shop}&sku=${m.sku}`)).length).toBe(m.visits);

    // A visit moves to another shop through the API: the stores follow at once (the write projected
    // the visit, the page cache was renewed).
    const allStores = await t.get(`/api/app/v1/overview/stores/?${RANGE}&limit=500`);
    expect((await t.get(`/api/app/v1/overview/stores/?${RANGE}&limit=500`)).text).toBe(allStores.text);
    const moved = data.visits.find((v) => v.started_date?.startsWith('2026-03'))!;
    const patch = await t.call('PATCH', `/api/v1.5/visits/${moved.id}/`, { json: { shop: 'shop-moved', shop_name: 'Moved shop' } });
    expect(patch.status, patch.text).toBe(200);
    const after = await t.get(`/api/app/v1/overview/stores/?${RANGE}&limit=500`);
    expect(after.body.results.find((r: { shop: string }) => r.shop === 'shop-moved')).toMatchObject({ shop_name: 'Moved shop', visits: 1 });
    const before = allStores.body.results.find((r: { shop: string }) => r.shop === moved.shop).visits;
    expect(after.body.results.find((r: { shop: string }) => r.shop === moved.shop)?.visits ?? 0).toBe(before - 1);

    // An SKU moves to another brand through the API: the share of shelf counts it under the new one at
    // once, for the visits stored before (the write reclassified their facts; the page cache was renewed).
    const shareBefore = await t.get(`/api/app/v1/overview/share/?${RANGE}`);
    expect((await t.get(`/api/app/v1/overview/share/?${RANGE}`)).text).toBe(shareBefore.text);
    const sku = data.skus.find((k) => k.brand_id === 'brand-0')!;
    const skuPatch = await t.call('PATCH', `/api/v1.5/sku/${sku.id}/`, { json: { brand: 'brand-1' } });
    expect(skuPatch.status, skuPatch.text).toBe(200);
    const shareAfter = await t.get(`/api/app/v1/overview/share/?${RANGE}`);
    const facingsOf = (body: { results: { brand: string | null; facings: number }[] }, brand: string) => body.results.find((r) => r.brand === brand)?.facings ?? 0;
    const moves = facingsOf(shareBefore.body, 'brand-0') - facingsOf(shareAfter.body, 'brand-0');
    expect(moves).toBeGreaterThan(0);
    expect(facingsOf(shareAfter.body, 'brand-1')).toBe(facingsOf(shareBefore.body, 'brand-1') + moves);
    expect(shareAfter.body.facings).toBe(shareBefore.body.facings);
  });
});

describe('exports', () => {
  it('the CSV and the XLSX hold the API\'s visits, row for row', async () => {
    const query = `${RANGE}&review=unreviewed`;
    const api = await allVisits(query);
    expect(api.length).toBeGreaterThan(100);
    // Price compliance goes out with the other KPIs, where visits have it.
    expect(EXPORT_COLUMNS.map((c) => c.key)).toContain('price');
    expect(api.filter((r) => r.price !== null).length).toBeGreaterThan(api.length / 3);
    const expected = api.map((r) => EXPORT_COLUMNS.map((c) => (Array.isArray(r[c.key]) ? (r[c.key] as string[]).join(' ') : r[c.key] === null ? '' : String(r[c.key]))));

    const csv = await fetch(`${t.url}/api/app/v1/overview/export/?${query}&format=csv`, { headers: { authorization: `Token ${API_KEY}` } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.headers.get('content-disposition')).toContain('visits-2026-03-01-2026-03-31.csv');
    const rows = parse(await csv.text()) as string[][];
    expect(rows[0]).toEqual(EXPORT_COLUMNS.map((c) => c.header));
    expect(rows.slice(1)).toEqual(expected);

    const xlsx = await fetch(`${t.url}/api/app/v1/overview/export/?${query}&format=xlsx`, { headers: { authorization: `Token ${API_KEY}` } });
    expect(xlsx.status).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(await xlsx.arrayBuffer());
    const sheet = book.getWorksheet('Visits')!;
    const cells: string[][] = [];
    sheet.eachRow((row) => cells.push(EXPORT_COLUMNS.map((_, i) => {
      const v = row.getCell(i + 1).value;
      return v === null || v === undefined ? '' : String(v);
    })));
    expect(cells[0]).toEqual(EXPORT_COLUMNS.map((c) => c.header));
    expect(cells.slice(1)).toEqual(expected);
  });

  it('an empty period is a valid file with the header alone', async () => {
    const query = 'date_from=2020-01-01&date_to=2020-01-31';
    const csv = await t.get(`/api/app/v1/overview/export/?${query}&format=csv`);
    expect(csv.status).toBe(200);
    expect(parse(csv.text)).toEqual([EXPORT_COLUMNS.map((c) => c.header)]);
    const xlsx = await fetch(`${t.url}/api/app/v1/overview/export/?${query}&format=xlsx`, { headers: { authorization: `Token ${API_KEY}` } });
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(await xlsx.arrayBuffer());
    expect(book.getWorksheet('Visits')!.actualRowCount).toBe(1);
  });

  it('a cancelled export stops reading visits', async () => {
    const f = await readFilters(t.server.app.db, { date_from: '2026-03-01', date_to: '2026-03-31' });
    let total = 0;
    await factsReady(t.server.app.db);
    for await (const _ of periodVisits(t.server.app.db, f)) total++;
    expect(total).toBeGreaterThan(1000);
    const abort = new AbortController();
    let read = 0;
    for await (const _ of periodVisits(t.server.app.db, f, abort.signal)) {
      if (read++ === 0) abort.abort();
    }
    // The page in hand is finished; no other is read.
    expect(read).toBe(500);

    // Over HTTP: the client goes after the first bytes, and the server keeps answering.
    const client = new AbortController();
    const res = await fetch(`${t.url}/api/app/v1/overview/export/?${RANGE}&format=csv`, { headers: { authorization: `Token ${API_KEY}` }, signal: client.signal });
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    client.abort();
    expect((await t.get(`/api/app/v1/overview/share/?${RANGE}`)).status).toBe(200);
  });

  it("a visit's PDF says what the visit found, in any script its names are in", async () => {
    const png = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#8899aa' } }).png().toBuffer();
    const form = new FormData();
    form.append('datafile', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'shelf.png');
    const up = await t.call('POST', '/api/v1.5/uploads/', { multipart: form });
    expect(up.status, up.text).toBe(201);
    const db = t.server.app.db;
    const at = '2026-03-05T10:00:00.000Z';
    const stamp = { created_at: at, updated_at: at };
    // SKU names in Cyrillic, Greek, accented Latin and Chinese (which DejaVu Sans has no glyphs for).
    const names = { 'sku-ru': 'Молоко «Простоквашино» 3,2%', 'sku-el': 'Γιαούρτι στραγγιστό 2%', 'sku-fr': 'Crème brûlée Œuf', 'sku-zh': '绿茶 Green tea' };
    await db.insertInto('skus').values(Object.entries(names).map(([id, name]) => ({ id, name, brand_id: null, category_id: null, ...stamp })) as never).execute();
    await db.insertInto('visits').values({ id: 'pdf-visit', name: 'Morning round', shop: 'shop-0', shop_name: 'Лавка на углу', agent: 'agent-1', started_date: at, moderation: 'reviewed', is_new: 1, is_closed: 0, ...stamp }).execute();
    await db.insertInto('scenes').values({ id: 'pdf-scene', request_id: 'pdf-req', visit_id: 'pdf-visit', display_id: 'display-0', images: JSON.stringify([up.body.id]), options: '{}', webhook: null, agent_id: 'agent-1', analysis: null, ...stamp }).execute();
    const report = (type: string, json: unknown) => ({ id: `pdf-${type}`, scene_id: 'pdf-scene', visit_id: 'pdf-visit', report_type: type, status: 'READY' as const, json: JSON.stringify(json), error: null, previous_report: null, ...stamp });
    await db.insertInto('reports').values([
      report('FACING_COUNT', [{ sku_id: 'sku-3', count: 4 }, { sku_id: 'sku-ru', count: 3 }, { sku_id: 'sku-el', count: 2 }, { sku_id: 'sku-fr', count: 5 }, { sku_id: 'sku-zh', count: 1 }, { sku_id: null, count: 2 }]),
      report('REALOGRAM', [{ image: up.body.id, width: 800, height: 600, annotations: [{ sku_id: 'sku-3', name: 'Product 3', x: 100, y: 100, w: 50, h: 80, score: 0.9, sku_score: 0.8, shelf_index: 0 }, { sku_id: null, name: null, x: 300, y: 100, w: 50, h: 80, score: 0.9, sku_score: 0, shelf_index: 0 }], shelf_annotations: [] }]),
      report('PLANOGRAM_COMPLIANCE', { planogram: 'p', display: 'display-0', compliance: 0.5, expected_faces: 8, correct_faces: 4, positions: [], extra: [], actions: [{ type: 'add', sku_id: 'sku-5', rack_index: 0, shelf_index: 1, product_index: 2, count: 2, message: 'Add 2 facings of Product 5 on shelf 2' }] }),
      report('MHL_COMPLIANCE', { musthavelist: 'mhl-0', compliance: 0.8, records: [{ mhl_record_id: 'mhl-0-1', compliant: false, found_sku_id: null }] }),
      report('PRICE_COMPLIANCE', { shop: 'shop-0', day: '2026-03-05', compliance: 0.5, checked: 2, ok: 1, unlinked_tags: [], skus: [
        { sku_id: 'sku-3', name: 'Product 3', facings: 4, expected_price: '1.99', expected_currency: 'EUR', price_record: null, found_prices: [{ price: '1.99', currency: 'EUR' }], tags: [], status: 'ok' },
        { sku_id: 'sku-fr', name: 'Crème brûlée Œuf', facings: 5, expected_price: '2.29', expected_currency: 'EUR', price_record: null, found_prices: [{ price: '2.49', currency: 'EUR' }], tags: [], status: 'wrong_price' },
      ] }),
    ]).execute();
    await db.insertInto('kpi_values').values({ id: 'pdf-price', visit_id: 'pdf-visit', kpi_id: 'shelf-audit:price-compliance', category_id: null, value: 50, ...stamp }).execute();

    const res = await fetch(`${t.url}/api/app/v1/overview/visits/pdf-visit/report/`, { headers: { authorization: `Token ${API_KEY}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const bytes = new Uint8Array(await res.arrayBuffer());
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    const fonts = `${path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'))}/standard_fonts/`;
    const doc = await pdfjs.getDocument({ data: bytes, standardFontDataUrl: fonts }).promise;
    let text = '';
    for (let i = 1; i <= doc.numPages; i++) {
      const content = await (await doc.getPage(i)).getTextContent();
      text += content.items.map((it) => ('str' in it ? it.str : '')).join(' ') + '\n';
    }
    // Each name as it is, the line around it intact; the Chinese characters (no glyph) leave the rest of their line as it was.
    for (const expected of ['Молоко «Простоквашино» 3,2%: 3', 'Γιαούρτι στραγγιστό 2%: 2', 'Crème brûlée Œuf: 5', 'Green tea: 1', 'Shop: Лавка на углу (shop-0)']) {
      expect(text).toContain(expected);
    }
    for (const expected of ['Morning round', 'Review status: reviewed', 'Display 0', 'Product 3: 4', 'Unknown product: 2', 'Planogram: 50% (4 of 8 faces placed correctly)', `Missing: Product ${data.mhl_records.find((r) => r.id === 'mhl-0-1')!.sku_id.slice(4)}`, 'Add 2 facings of Product 5 on shelf 2', '2 boxes', 'Price compliance: 50%', "Prices: 50% (1 of 2 tags show the price list's price)", 'Fix the price tag of Crème brûlée Œuf: it shows 2.49 EUR, the price list says 2.29 EUR']) {
      expect(text).toContain(expected);
    }
    // The photo is in it.
    const ops = await (await doc.getPage(2)).getOperatorList();
    expect(ops.fnArray).toContain(pdfjs.OPS.paintImageXObject);
  });
});
