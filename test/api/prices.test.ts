// The price list (issue 45): /api/app/v1/prices/ and the import's `price_list` rows. Money is a
// decimal string stored in hundredths; a bad list (unknown SKU, a negative or non-numeric price,
// overlapping validity) is refused whole with every bad row named; a visit's price is the one valid
// on its day, the shop's own before the general one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pricesOn } from '../../main/server/domain/prices.js';
import { startTestServer, type TestServer } from './harness.js';

const PRICES = '/api/app/v1/prices/';
const IMPORT = '/api/app/v1/import/';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  for (const id of ['sku-a', 'sku-b', 'sku-c']) expect((await t.post('/api/v1.5/sku/', { id, name: id })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

describe('price list API', () => {
  it('creates, reads, lists with filters, updates and deletes a price; money round-trips exactly', async () => {
    const made = await t.post(PRICES, { sku: 'sku-a', price: '1.1', currency: 'EUR', valid_from: '2026-01-01', valid_to: '2026-06-30' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ sku: 'sku-a', price: '1.10', currency: 'EUR', shop: null, valid_from: '2026-01-01', valid_to: '2026-06-30' });
    // Stored in hundredths: 0.1 + 0.2 style floats never reach it.
    const stored = t.snapshot().price_list as Array<{ id: string; price_cents: number }>;
    expect(stored.find((r) => r.id === made.body.id)?.price_cents).toBe(110);
    expect((await t.get(`${PRICES}${made.body.id}/`)).body.price).toBe('1.10');
    const patched = await t.patch(`${PRICES}${made.body.id}/`, { price: '0.30' });
    expect(patched.status).toBe(200);
    expect(patched.body.price).toBe('0.30');
    await t.post(PRICES, { sku: 'sku-b', price: '19.99', currency: 'EUR', shop: 'shop-1', valid_from: '2026-01-01' });
    const bySku = await t.get(`${PRICES}?sku=sku-b`);
    expect(bySku.body).toMatchObject({ count: 1, next: null, previous: null });
    expect(bySku.body.results[0]).toMatchObject({ price: '19.99', shop: 'shop-1', valid_to: null });
    expect((await t.get(`${PRICES}?shop=shop-1&limit=1`)).body.count).toBe(1);
    expect((await t.get(`${PRICES}?ordering=-price`)).body.results.map((r: { price: string }) => r.price)).toEqual(['19.99', '0.30']);
    expect((await t.delete(`${PRICES}${made.body.id}/`)).status).toBe(200);
    expect((await t.get(`${PRICES}${made.body.id}/`)).status).toBe(404);
  });

  it('refuses bad prices, currencies, days and SKUs with DRF field errors, never a 500', async () => {
    const before = t.snapshot();
    const cases: Array<[Record<string, unknown>, Record<string, string[]>]> = [
      [{ sku: 'sku-a', price: '-1.00', currency: 'EUR', valid_from: '2026-01-01' }, { price: ['A valid amount is required: at least 0, at most 2 decimals, a point before them ("1.99").'] }],
      [{ sku: 'sku-a', price: 'abc', currency: 'EUR', valid_from: '2026-01-01' }, { price: ['A valid amount is required: at least 0, at most 2 decimals, a point before them ("1.99").'] }],
      [{ sku: 'sku-a', price: '1.999', currency: 'EUR', valid_from: '2026-01-01' }, { price: ['A valid amount is required: at least 0, at most 2 decimals, a point before them ("1.99").'] }],
      [{ sku: 'sku-a', price: '1,99', currency: 'EUR', valid_from: '2026-01-01' }, { price: ['A valid amount is required: at least 0, at most 2 decimals, a point before them ("1.99").'] }],
      [{ sku: 'sku-a', price: '1.00', currency: 'eur', valid_from: '2026-01-01' }, { currency: ['Enter a 3-letter ISO 4217 currency code in capitals ("EUR").'] }],
      [{ sku: 'sku-a', price: '1.00', currency: 'EUR', valid_from: '01/02/2026' }, { valid_from: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'] }],
      [{ sku: 'sku-a', price: '1.00', currency: 'EUR', valid_from: '2026-02-30' }, { valid_from: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'] }],
      [{ sku: 'sku-a', price: '1.00', currency: 'EUR', valid_from: '2026-03-01', valid_to: '2026-02-01' }, { valid_to: ['Ends (2026-02-01) before it starts (2026-03-01).'] }],
      [{ sku: 'no-such-sku', price: '1.00', currency: 'EUR', valid_from: '2026-01-01' }, { sku: ['Invalid pk "no-such-sku" - object does not exist.'] }],
      [{ price: '1.00', currency: 'EUR', valid_from: '2026-01-01' }, { sku: ['This field is required.'] }],
    ];
    for (const [body, errors] of cases) {
      const res = await t.post(PRICES, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body, JSON.stringify(body)).toEqual(errors);
    }
    expect(t.snapshot()).toEqual(before);
  });

  it('refuses a price whose validity overlaps another of the same SKU, shop and currency', async () => {
    const first = await t.post(PRICES, { sku: 'sku-c', price: '2.00', currency: 'EUR', valid_from: '2026-01-01', valid_to: '2026-03-31' });
    expect(first.status).toBe(201);
    const overlap = await t.post(PRICES, { sku: 'sku-c', price: '2.50', currency: 'EUR', valid_from: '2026-03-31' });
    expect(overlap.status).toBe(400);
    expect(overlap.body.non_field_errors[0]).toContain(`Overlaps price "${first.body.id}" (2.00 EUR, 2026-01-01 to 2026-03-31)`);
    // The next day, another shop or another currency: no overlap.
    expect((await t.post(PRICES, { sku: 'sku-c', price: '2.50', currency: 'EUR', valid_from: '2026-04-01' })).status).toBe(201);
    expect((await t.post(PRICES, { sku: 'sku-c', price: '2.20', currency: 'EUR', shop: 'shop-1', valid_from: '2026-01-01' })).status).toBe(201);
    expect((await t.post(PRICES, { sku: 'sku-c', price: '3.00', currency: 'USD', valid_from: '2026-01-01' })).status).toBe(201);
    // An update that would make two overlap is refused too, and changes nothing.
    const moved = await t.patch(`${PRICES}${first.body.id}/`, { valid_to: '2026-04-15' });
    expect(moved.status).toBe(400);
    expect((await t.get(`${PRICES}${first.body.id}/`)).body.valid_to).toBe('2026-03-31');
  });

  it("a visit's price: valid on its day, the shop's own before the general one", async () => {
    const db = t.server.app.db;
    const on = async (shop: string | null, day: string) => Object.fromEntries([...(await pricesOn(db, ['sku-c'], shop, day))].map(([k, v]) => [k, v.map((p) => [p.cents, p.currency, p.shop])]));
    expect(await on(null, '2026-02-01')).toEqual({ 'sku-c': [[200, 'EUR', null], [300, 'USD', null]] });
    expect(await on('shop-1', '2026-02-01')).toEqual({ 'sku-c': [[220, 'EUR', 'shop-1'], [300, 'USD', null]] });
    expect(await on('shop-2', '2026-05-01')).toEqual({ 'sku-c': [[250, 'EUR', null], [300, 'USD', null]] });
    expect(await on(null, '2025-12-31')).toEqual({});
  });
});

describe('price list import', () => {
  it('imports JSON (numbers or strings) and CSV rows, named `prices` or `price_list`', async () => {
    const json = await t.post(IMPORT, { price_list: [{ id: 'p-json', sku: 'sku-a', price: 4.5, currency: 'EUR', valid_from: '2027-01-01' }] });
    expect(json.status).toBe(200);
    expect(json.body.created.price_list).toBe(1);
    expect((await t.get(`${PRICES}p-json/`)).body.price).toBe('4.50');
    const csv = 'id,sku,price,currency,shop,valid_from,valid_to\np-csv-1,sku-b,0.99,EUR,,2027-01-01,2027-12-31\np-csv-2,sku-b,1.05,EUR,shop-9,2027-01-01,\n';
    const res = await t.call('POST', `${IMPORT}?entity=prices`, { raw: { body: csv, type: 'text/csv' } });
    expect(res.status).toBe(200);
    expect(res.body.created.price_list).toBe(2);
    expect((await t.get(`${PRICES}p-csv-2/`)).body).toMatchObject({ price: '1.05', shop: 'shop-9', valid_to: null });
    // Again: updated by id, not duplicated.
    const again = await t.call('POST', `${IMPORT}?entity=price_list`, { raw: { body: csv, type: 'text/csv' } });
    expect(again.body.updated.price_list).toBe(2);
  });

  it('refuses the whole list with each bad row named: unknown SKU, negative or non-numeric price, overlap', async () => {
    const before = t.snapshot();
    const csv = [
      'sku,price,currency,valid_from,valid_to',
      'sku-a,1.00,GBP,2028-01-01,2028-06-30', // row 0: fine
      'ghost,1.00,GBP,2028-01-01,', // row 1: unknown SKU
      'sku-a,-2,GBP,2028-07-01,', // row 2: negative
      'sku-b,two,GBP,2028-01-01,', // row 3: not a number
      'sku-a,1.50,GBP,2028-06-01,2028-12-31', // row 4: overlaps row 0
    ].join('\n');
    const res = await t.call('POST', `${IMPORT}?entity=prices`, { raw: { body: csv, type: 'text/csv' } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('Import failed: 4 invalid rows; nothing was imported.');
    const amount = ['A valid amount is required: at least 0, at most 2 decimals, a point before them ("1.99").'];
    expect(res.body.failures.map((f: { index: number; entity: string }) => [f.entity, f.index])).toEqual([['price_list', 1], ['price_list', 2], ['price_list', 3], ['price_list', 4]]);
    expect(res.body.failures[0].errors).toEqual({ sku: ['Invalid pk "ghost" - object does not exist.'] });
    expect(res.body.failures[1].errors).toEqual({ price: amount });
    expect(res.body.failures[2].errors).toEqual({ price: amount });
    expect(res.body.failures[3].errors.non_field_errors[0]).toMatch(/^Overlaps price ".+" \(1\.00 GBP, 2028-01-01 to 2028-06-30\) of the same SKU, every shop and currency GBP/);
    expect(t.snapshot()).toEqual(before);
  });
});
