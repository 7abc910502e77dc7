// The price list's records (/api/app/v1/prices/, the import's `price_list` rows). Money is a decimal
// string ("1.99"), days are YYYY-MM-DD.
import { Type } from 'typebox';
import { Id, Nullable, Ref } from './common.js';

/** A non-negative amount with at most two decimals, point-separated: "0", "1.5", "12.99". */
export const MONEY_PATTERN = '^[0-9]{1,9}(\\.[0-9]{1,2})?$';
/** A day as the price list writes it. */
export const DAY_PATTERN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}$';
/** An ISO 4217 code. */
export const CURRENCY_PATTERN = '^[A-Z]{3}$';

const Money = Type.String({ pattern: MONEY_PATTERN, maxLength: 12, description: 'A decimal string, at least 0, at most 2 decimals: "1.99"' });
const Currency = Type.String({ pattern: CURRENCY_PATTERN, description: 'ISO 4217 code: "EUR"' });
const Day = Type.String({ pattern: DAY_PATTERN, description: 'A day, YYYY-MM-DD' });
const Shop = Type.String({ minLength: 1, maxLength: 255, description: "The visits' `shop` this price is for; null: every shop without a price of its own" });

export const PriceItem = Type.Object({
  id: Type.String(),
  sku: Type.String(),
  price: Type.String({ description: 'A decimal string: "1.99"' }),
  currency: Type.String(),
  shop: Nullable(Type.String()),
  valid_from: Type.String({ description: 'First day, YYYY-MM-DD' }),
  valid_to: Nullable(Type.String({ description: 'Last day (included), YYYY-MM-DD; null: open-ended' })),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const PriceCreate = Type.Object({
  id: Type.Optional(Id),
  sku: Ref,
  price: Money,
  currency: Currency,
  shop: Type.Optional(Nullable(Shop)),
  valid_from: Day,
  valid_to: Type.Optional(Nullable(Day)),
});

export const PriceUpdate = Type.Object({
  id: Type.Optional(Id),
  sku: Type.Optional(Ref),
  price: Type.Optional(Money),
  currency: Type.Optional(Currency),
  shop: Type.Optional(Nullable(Shop)),
  valid_from: Type.Optional(Day),
  valid_to: Type.Optional(Nullable(Day)),
});
