// The price list (issue 45): what each SKU should cost, in a currency, from one day to another,
// everywhere (`shop` null) or in one shop. Two rules live here and nowhere else:
// - no two prices of one SKU, shop and currency are valid on the same day (checkPrice, run by every
//   write: the API's and the import's, so a bad list is refused whole with each bad row named);
// - the price that applies to a visit is the one valid on the visit's day, a shop's own price before
//   the general one (pricesOn).
import type { Kysely } from 'kysely';
import { DAY_PATTERN } from '../schemas/prices.js';
import type { Database } from '../storage/schema.js';
import { moneyText } from './money.js';
import type { ResourceDef } from './resource.js';


/** Whether YYYY-MM-DD names a day of the calendar (not 2026-02-30). */
export function isDay(text: string): boolean {
  if (!new RegExp(DAY_PATTERN).test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

/** The cross-record rules of one written price: real days, an order between them, no overlap. */
async function checkPrice(db: Kysely<Database>, id: string): Promise<Record<string, string[]> | null> {
  const row = await db.selectFrom('price_list').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const errors: Record<string, string[]> = {};
  if (!isDay(row.valid_from)) errors.valid_from = ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'];
  if (row.valid_to !== null && !isDay(row.valid_to)) errors.valid_to = ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'];
  else if (row.valid_to !== null && row.valid_to < row.valid_from) errors.valid_to = [`Ends (${row.valid_to}) before it starts (${row.valid_from}).`];
  if (Object.keys(errors).length > 0) return errors;
  let q = db
    .selectFrom('price_list')
    .select(['id', 'price_cents', 'valid_from', 'valid_to'])
    .where('sku_id', '=', row.sku_id)
    .where('currency', '=', row.currency)
    .where('id', '!=', id)
    .where((eb) => eb.or([eb('valid_to', 'is', null), eb('valid_to', '>=', row.valid_from)]));
  if (row.valid_to !== null) q = q.where('valid_from', '<=', row.valid_to);
  q = row.shop === null ? q.where('shop', 'is', null) : q.where('shop', '=', row.shop);
  const clash = await q.orderBy('valid_from').executeTakeFirst();
  if (!clash) return null;
  const where = row.shop === null ? 'every shop' : `shop "${row.shop}"`;
  return {
    non_field_errors: [
      `Overlaps price "${clash.id}" (${moneyText(clash.price_cents)} ${row.currency}, ${clash.valid_from} to ${clash.valid_to ?? 'open-ended'}) of the same SKU, ${where} and currency ${row.currency}: one price per day.`,
    ],
  };
}

export const prices: ResourceDef = {
  table: 'price_list',
  entity: 'price',
  label: 'price',
  fields: {
    sku: { column: 'sku_id', ref: 'skus' },
    price: { column: 'price_cents', kind: 'money' },
    currency: { column: 'currency' },
    shop: { column: 'shop' },
    valid_from: { column: 'valid_from' },
    valid_to: { column: 'valid_to' },
  },
  timestamps: true,
  check: checkPrice,
  list: {
    filters: {
      sku: { field: 'sku' },
      sku__in: { field: 'sku', match: 'in' },
      shop: { field: 'shop' },
      currency: { field: 'currency' },
    },
    search: ['sku', 'shop', 'currency', 'id'],
    ordering: ['sku', 'price', 'currency', 'shop', 'valid_from', 'valid_to'],
  },
};

/** The price of an SKU that applies to a visit. */
export interface ExpectedPrice {
  id: string;
  cents: number;
  currency: string;
  /** The shop whose own price it is; null: the general price. */
  shop: string | null;
}

/**
 * The prices that apply on `day` (YYYY-MM-DD) in `shop` to each SKU named: per SKU and currency, the
 * shop's own price when it has one valid that day, else the general one. An SKU with prices in several
 * currencies has one per currency, ordered by currency.
 */
export async function pricesOn(db: Kysely<Database>, skuIds: readonly string[], shop: string | null, day: string): Promise<Map<string, ExpectedPrice[]>> {
  const out = new Map<string, ExpectedPrice[]>();
  if (skuIds.length === 0) return out;
  const rows = await db
    .selectFrom('price_list')
    .select(['id', 'sku_id', 'price_cents', 'currency', 'shop'])
    .where('sku_id', 'in', [...new Set(skuIds)])
    .where('valid_from', '<=', day)
    .where((eb) => eb.or([eb('valid_to', 'is', null), eb('valid_to', '>=', day)]))
    .where((eb) => (shop === null ? eb('shop', 'is', null) : eb.or([eb('shop', 'is', null), eb('shop', '=', shop)])))
    .orderBy('currency')
    .execute();
  for (const r of rows) {
    const list = out.get(r.sku_id) ?? [];
    const same = list.findIndex((p) => p.currency === r.currency);
    const price = { id: r.id, cents: r.price_cents, currency: r.currency, shop: r.shop };
    if (same < 0) list.push(price);
    else if (r.shop !== null) list[same] = price; // the shop's own price before the general one
    out.set(r.sku_id, list);
  }
  return out;
}
