// The price list's records (/api/app/v1/prices/, the import's `price_list` rows). Money is a decimal
// string ("1.99"), days are YYYY-MM-DD.
import { Type } from 'typebox';
import { Id, Nullable, Ref } from './common.js';

/** A non-negative amount with at most two decimals, point-separated: "0", "1.5", "12.99". */
// Up to 9,999,999.99: hundredths fit PostgreSQL's 32-bit integer.
export const MONEY_PATTERN = '^[0-9]{1,7}(\\.[0-9]{1,2})?$';
/** A day as the price list writes it. */
export const DAY_PATTERN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}$';
/** An ISO 4217 code. */
export const CURRENCY_PATTERN = '^[A-Z]{3}$';

const Money = Type.String({ pattern: MONEY_PATTERN, maxLength: 10, description: 'A decimal string, at least 0, at most 2 decimals: "1.99"' });
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

// --- the review of a scene's price tags (/api/v1.5/scenes/{id}/price_tags/) ---

const Open = (description: string) => Nullable(Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description }));

/** One tag as PRICE_TAGS shows it (scenes/reports/bodies.ts, PriceTagItem). */
export const PriceTag = Type.Object({
  index: Type.Integer({ description: "the tag's index in the photo: what a correction names" }),
  x1: Type.Number(),
  y1: Type.Number(),
  x2: Type.Number(),
  y2: Type.Number(),
  score: Type.Number({ description: 'tag detector confidence' }),
  text: Type.String({ description: 'the lines read, joined by newlines' }),
  status: Type.Union([Type.Literal('read'), Type.Literal('unreadable')]),
  price: Nullable(Type.String({ description: 'the shelf price, "1.99"; null when unreadable' })),
  currency: Nullable(Type.String()),
  reason: Nullable(Type.String({ description: 'why it is unreadable' })),
  promotion: Open('{kind: "bundle", quantity, total, currency} or {kind: "multibuy", buy, pay}'),
  unit_price: Open('{price, currency, per}'),
  read_score: Type.Number(),
  ean: Nullable(Type.String()),
  sku_id: Nullable(Type.String()),
  name: Nullable(Type.String()),
  product_index: Nullable(Type.Integer()),
  shelf_index: Nullable(Type.Integer()),
  reviewed: Type.Boolean({ description: 'a reviewer corrected its price or link' }),
  bay_x1: Type.Optional(Type.Number({ description: "photos joined into a bay: the tag's box in bay pixels" })),
  bay_y1: Type.Optional(Type.Number()),
  bay_x2: Type.Optional(Type.Number()),
  bay_y2: Type.Optional(Type.Number()),
});

export const TagCorrection = Type.Object({
  index: Type.Integer({ minimum: 0, maximum: 100_000, description: "the tag's index in the photo" }),
  price: Type.Optional(Nullable(Type.String({ pattern: MONEY_PATTERN, maxLength: 12, description: 'the price on the tag, "1.99"; null: it cannot be read' }))),
  currency: Type.Optional(Nullable(Type.String({ pattern: CURRENCY_PATTERN, description: 'with `price`: the currency printed' }))),
  sku_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'the SKU it prices; null: none' }))),
  box: Type.Optional(
    Type.Object(
      { x1: Type.Number(), y1: Type.Number(), x2: Type.Number(), y2: Type.Number() },
      { description: 'the tag the correction was made on (set by the server, ignored when sent): a correction follows its tag when the photo is analysed again' },
    ),
  ),
});

export const PhotoPriceTags = Type.Object({
  image: Type.String({ description: 'upload id' }),
  width: Type.Integer(),
  height: Type.Integer(),
  version: Type.Integer({ description: "0 until a reviewer saves this photo's tags; send it back with the corrections" }),
  reviewer: Nullable(Type.String()),
  reviewed_date: Nullable(Type.String()),
  tags: Type.Array(PriceTag, { description: "the model's tags with the corrections laid over" }),
  corrections: Type.Array(TagCorrection, { description: 'the corrections saved' }),
});

export const ScenePriceTags = Type.Object({ scene: Type.String(), visit: Type.String(), images: Type.Array(PhotoPriceTags) });

export const PriceTagsPutBody = Type.Object({
  images: Type.Array(
    Type.Object({
      image: Ref,
      version: Type.Integer({ minimum: 0, description: 'the version read' }),
      tags: Type.Array(TagCorrection, { maxItems: 5000, description: "replaces the photo's corrections" }),
    }),
    { minItems: 1, maxItems: 100 },
  ),
});

export const PriceTagsSaved = Type.Object({
  ...ScenePriceTags.properties,
  reports: Type.Record(Type.String(), Type.String(), { description: 'report type -> id of the new report that recomputes it' }),
});
