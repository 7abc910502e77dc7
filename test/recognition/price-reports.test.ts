// PRICE_TAGS and PRICE_COMPLIANCE as pure functions of an analysis written by hand (the API test,
// prices.test.ts, checks them again through recognition, the price list and the review): a bay's
// product seen in two photos with a tag in each is one SKU line; a disagreeing view's SKU is the
// merged facing's; the expected price in the currency a tag prints; an SKU only a tag's EAN names;
// promotions and unit prices in words the screens read; a photo without tags has none.
import { describe, expect, it } from 'vitest';
import type { PriceTagFound, ProductFound, SceneAnalysis } from '../../main/server/recognition/analysis.js';
import { buildPriceCompliance, buildPriceTags, priceSkus } from '../../main/server/scenes/reports/prices.js';
import { centsOf, moneyText } from '../../main/server/domain/money.js';

const product = (x1: number, sku: string | null, extra: Partial<ProductFound> = {}): ProductFound => ({
  x1, y1: 100, x2: x1 + 80, y2: 300, score: 0.9, sku_id: sku, sku_score: 0.8, rack_index: 0, shelf_index: 0, position: 0, ...extra,
});
const read = (cents: number, currency: string | null = null): PriceTagFound['reading'] => ({ status: 'read', price: { hundredths: cents, currency }, promotion: null, unitPrice: null });
const tag = (x1: number, reading: PriceTagFound['reading'], product_index: number | null, sku_id: string | null, extra: Partial<PriceTagFound> = {}): PriceTagFound => ({
  x1, y1: 310, x2: x1 + 60, y2: 340, score: 0.8, text: '', reading, read_score: 0.9, ean: null, product_index, sku_id, shelf_index: 0, ...extra,
});
const joined = (image: string, dx: number) => ({ image, joined: true, transform: [1, 0, dx, 0, 1, 0, 0, 0, 1], joined_to: null, overlap: null, reason: null, message: null });
const none = { shop: null, day: '2026-03-10', expected: new Map(), names: new Map() };

describe('money', () => {
  it('reads decimal strings into hundredths exactly and writes them back', () => {
    expect(['0', '0.1', '1.10', '19.99', '9999999.99'].map(centsOf)).toEqual([0, 10, 110, 1999, 999_999_999]);
    expect(['-1', '1,99', '1.999', '', '1.', '.5', '1e3', ' 1'].map(centsOf)).toEqual([null, null, null, null, null, null, null, null]);
    expect([0, 5, 110, 1999].map(moneyText)).toEqual(['0.00', '0.05', '1.10', '19.99']);
  });
});

describe('PRICE_COMPLIANCE in bay terms', () => {
  // Photo b starts 300 px right of photo a: a's product at 310 is b's at 10, and both photos show its tag.
  const a = [product(0, 'x'), product(310, 'y', { sku_score: 0.9 })];
  const b = [product(10, 'z', { sku_score: 0.5 }), product(200, 'w')];
  const analysis: SceneAnalysis = {
    images: [
      { image: 'a', width: 400, height: 400, products: a, shelves: [], price_tags: [tag(10, read(100), 0, 'x'), tag(320, read(250), 1, 'y')] },
      // b's view of the same product was identified as z: its tag prices the merged facing, y.
      { image: 'b', width: 400, height: 400, products: b, shelves: [], price_tags: [tag(20, read(250), 0, 'z')] },
    ],
    ms: { decode: 0, detect: 0, identify: 0 },
    bay: { width: 700, height: 400, ms: 0, photos: [joined('a', 0), joined('b', 300)] },
  };

  it('counts a product seen in two photos once, its two tags on one line', () => {
    const expected = new Map([['y', [{ id: 'p-y', cents: 250, currency: 'EUR', shop: null }]], ['x', [{ id: 'p-x', cents: 100, currency: 'EUR', shop: null }]]]);
    const c = buildPriceCompliance(analysis, { ...none, expected });
    expect(priceSkus(analysis).sort()).toEqual(['w', 'x', 'y']);
    const y = c.skus.find((s) => s.sku_id === 'y')!;
    expect(y).toMatchObject({ facings: 1, status: 'ok', found_prices: [{ price: '2.50', currency: null }], tags: [{ image: 'a', index: 1 }, { image: 'b', index: 0 }] });
    expect(c.skus.find((s) => s.sku_id === 'z')).toBeUndefined();
    expect(c.skus.find((s) => s.sku_id === 'w')?.status).toBe('no_expected_price');
    expect(c).toMatchObject({ checked: 2, ok: 2, compliance: 1 });
    expect(c.bay?.joined).toEqual(['a', 'b']);
    const bTag = buildPriceTags(analysis, new Map()).find((p) => p.image === 'b')!.tags[0];
    // Priced by the merged facing, and placed in the bay: photo b starts 300 px to the right.
    expect(bTag).toMatchObject({ sku_id: 'y', x1: 20, bay_x1: 320, bay_y1: 310, bay_x2: 380, bay_y2: 340 });
  });
});

describe('PRICE_COMPLIANCE statuses', () => {
  it('picks the expected price in the currency a tag prints; another currency or amount is a wrong price', () => {
    const one: SceneAnalysis = {
      images: [{ image: 'p', width: 600, height: 400, products: [product(0, 'a'), product(100, 'b')], shelves: [], price_tags: [tag(0, read(300, 'USD'), 0, 'a'), tag(100, read(199, 'USD'), 1, 'b')] }],
      ms: { decode: 0, detect: 0, identify: 0 },
    };
    const expected = new Map([
      ['a', [{ id: 'a-eur', cents: 199, currency: 'EUR', shop: null }, { id: 'a-usd', cents: 300, currency: 'USD', shop: null }]],
      ['b', [{ id: 'b-eur', cents: 199, currency: 'EUR', shop: null }]],
    ]);
    const c = buildPriceCompliance(one, { ...none, expected });
    expect(c.skus.find((s) => s.sku_id === 'a')).toMatchObject({ status: 'ok', price_record: 'a-usd', expected_price: '3.00', expected_currency: 'USD' });
    // 1.99 USD on a tag where the list says 1.99 EUR: not the agreed price.
    expect(c.skus.find((s) => s.sku_id === 'b')).toMatchObject({ status: 'wrong_price', expected_currency: 'EUR' });
  });

  it('an SKU a tag names by its EAN, off the shelf, is checked with no facings; nothing to check has no compliance figure', () => {
    const ean: SceneAnalysis = {
      images: [{ image: 'p', width: 600, height: 400, products: [product(0, null)], shelves: [], price_tags: [tag(0, read(120), null, 'q', { ean: '4006381333931' })] }],
      ms: { decode: 0, detect: 0, identify: 0 },
    };
    const c = buildPriceCompliance(ean, { ...none, expected: new Map([['q', [{ id: 'q1', cents: 120, currency: 'EUR', shop: null }]]]) });
    expect(c.skus).toEqual([expect.objectContaining({ sku_id: 'q', facings: 0, status: 'ok' })]);
    const empty: SceneAnalysis = { images: [{ image: 'p', width: 10, height: 10, products: [], shelves: [] }], ms: { decode: 0, detect: 0, identify: 0 } };
    expect(buildPriceCompliance(empty, none)).toMatchObject({ skus: [], unlinked_tags: [], checked: 0, compliance: null });
    expect(buildPriceTags(empty, new Map())).toEqual([{ image: 'p', width: 10, height: 10, tags: [] }]);
  });

  it('writes promotions and unit prices as the screens read them', () => {
    const promo: SceneAnalysis = {
      images: [{
        image: 'p', width: 600, height: 400, products: [product(0, 'a')], shelves: [],
        price_tags: [tag(0, { status: 'read', price: { hundredths: 299, currency: 'EUR' }, promotion: { kind: 'bundle', quantity: 2, total: { hundredths: 500, currency: 'EUR' } }, unitPrice: { price: { hundredths: 598, currency: 'EUR' }, per: 'l' } }, 0, 'a')],
      }],
      ms: { decode: 0, detect: 0, identify: 0 },
    };
    expect(buildPriceTags(promo, new Map([['a', 'Apple juice']]))[0].tags[0]).toMatchObject({
      price: '2.99', currency: 'EUR', name: 'Apple juice',
      promotion: { kind: 'bundle', quantity: 2, total: '5.00', currency: 'EUR' },
      unit_price: { price: '5.98', currency: 'EUR', per: 'l' },
    });
  });
});

describe('tags that price no known SKU', () => {
  it('are reported apart, saying whether they price an unidentified facing or none', () => {
    const a: SceneAnalysis = {
      images: [{ image: 'p', width: 600, height: 400, products: [product(0, null)], shelves: [], price_tags: [tag(0, read(150), 0, null), tag(300, { status: 'unreadable', reason: 'no price in the text read', promotion: null, unitPrice: null }, null, null, { text: 'x' })] }],
      ms: { decode: 0, detect: 0, identify: 0 },
    };
    expect(buildPriceCompliance(a, none).unlinked_tags).toEqual([
      { image: 'p', index: 0, product_index: 0, price: '1.50', currency: null, status: 'read', text: '' },
      { image: 'p', index: 1, product_index: null, price: null, currency: null, status: 'unreadable', text: 'x' },
    ]);
  });
});
