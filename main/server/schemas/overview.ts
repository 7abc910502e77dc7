// The supervisors' overview (/api/app/v1/overview/...): its filters, figures and exports.
// docs/api.md, "Overview".
import { Type } from 'typebox';
import { ID_MAX_LENGTH, Nullable, PageQueryProperties } from './common.js';

const Day = (description: string) => Type.String({ maxLength: 10, description: `${description}, YYYY-MM-DD (UTC)` });
const Filter = (description: string) => Type.Optional(Type.String({ maxLength: ID_MAX_LENGTH, description }));

/** The filters every overview read takes; the range is required and at most 366 days. */
export const OverviewFilterProperties = {
  date_from: Day('First day of the range (visits by started_date)'),
  date_to: Day('Last day of the range, included; not before date_from, at most 366 days after it'),
  shop: Filter('Only the visits of this shop (a visit\'s `shop`); a shop no visit names: 400'),
  display: Filter('Only visits with a scene of this display; product figures count only its scenes'),
  brand: Filter('Only visits with a product of this brand; product figures count only its products (the share of shelf keeps every brand)'),
  category: Filter('Only visits with a product of this category; product figures count only its products'),
  agent: Filter('Only the visits of this agent (a visit\'s `agent`)'),
  review: Type.Optional(Type.String({ maxLength: 20, description: 'Review status: unreviewed (or never reviewed), in_review, reviewed' })),
};
export const OverviewQuery = Type.Object(OverviewFilterProperties);
export const OverviewPageQuery = Type.Object({ ...OverviewFilterProperties, ...PageQueryProperties });

export const BucketValue = Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')], { description: 'Period of each point: a day, an ISO week (from its Monday), a month' });
export const KpiSeriesQuery = Type.Object({ ...OverviewFilterProperties, bucket: Type.Optional(BucketValue) });

const Percent = (description: string) => Nullable(Type.Number({ description: `${description} (percent, 0-100); null when no visit has it` }));
const KpiFigures = {
  visits: Type.Integer(),
  osa: Percent('Mean on-shelf availability of the must-have lists'),
  planogram: Percent('Mean planogram compliance'),
  facings: Nullable(Type.Number({ description: 'Mean total facings per visit' })),
  price: Percent('Mean price compliance (price tags showing the price list\'s price)'),
};
export const KpiSeries = Type.Object({
  date_from: Type.String(),
  date_to: Type.String(),
  bucket: BucketValue,
  series: Type.Array(Type.Object({ period: Type.String({ description: 'First day of the period' }), ...KpiFigures }), { description: 'Periods with visits, oldest first' }),
  totals: Type.Object(KpiFigures),
});

const links = {
  count: Type.Integer(),
  next: Nullable(Type.String({ format: 'uri' })),
  previous: Nullable(Type.String({ format: 'uri' })),
};
const Envelope = <T extends ReturnType<typeof Type.Object>>(item: T) => Type.Object({ ...links, results: Type.Array(item) });

export const StoreRow = Type.Object({
  shop: Nullable(Type.String()),
  shop_name: Nullable(Type.String()),
  visits: Type.Integer(),
  osa: Percent('Mean OSA of the shop\'s visits'),
  planogram: Percent('Mean planogram compliance of the shop\'s visits'),
  facings: Nullable(Type.Number({ description: 'Mean facings per visit' })),
  price: Percent('Mean price compliance of the shop\'s visits'),
  missing: Type.Integer({ description: 'Must-haves missing, summed over the visits' }),
  flagged: Type.Integer({ description: 'Photos flagged by their pixel checks' }),
  last_visit: Type.String(),
});
export const StoreList = Envelope(StoreRow);

export const MissingRow = Type.Object({
  shop: Nullable(Type.String()),
  shop_name: Nullable(Type.String()),
  sku: Type.String(),
  sku_name: Type.String(),
  visits: Type.Integer({ description: 'Visits of the range where it was missing' }),
  last_missing: Type.String(),
  last_seen: Nullable(Type.String({ description: 'The latest visit of the shop (up to the range\'s end) with the product on the shelf; null: never' })),
});
export const MissingList = Envelope(MissingRow);

export const ShareOfShelf = Type.Object({
  facings: Type.Integer({ description: 'Identified facings in all' }),
  unknown_facings: Type.Integer({ description: 'Facings of products not identified (outside the shares)' }),
  results: Type.Array(
    Type.Object({
      brand: Nullable(Type.String()),
      brand_name: Nullable(Type.String()),
      facings: Type.Integer(),
      share: Type.Number({ description: 'Share of the identified facings, 0-1' }),
    }),
  ),
});

export const AgentRow = Type.Object({
  agent: Nullable(Type.String()),
  agent_name: Nullable(Type.String()),
  visits: Type.Integer(),
  photos: Type.Integer(),
  flagged: Type.Integer({ description: 'Photos flagged by their pixel checks under the thresholds in force' }),
  retaken: Type.Integer({ description: 'Photos of scenes taken again later in the same visit, of the same display' }),
});
export const AgentList = Envelope(AgentRow);

export const VisitRow = Type.Object({
  visit: Type.String(),
  name: Nullable(Type.String()),
  shop: Nullable(Type.String()),
  shop_name: Nullable(Type.String()),
  agent: Nullable(Type.String()),
  started_date: Type.String(),
  review: Type.String(),
  osa: Nullable(Type.Number()),
  planogram: Nullable(Type.Number()),
  facings: Nullable(Type.Number()),
  price: Nullable(Type.Number({ description: 'Price compliance (percent); null until its price tags are read against a price list' })),
  photos: Type.Integer(),
  unknown_facings: Type.Integer(),
  flagged: Type.Integer(),
  unjoined: Type.Integer({ description: "Photos the bay's registration could not join to the others (take them again)" }),
  retaken: Type.Integer(),
  missing: Type.Integer(),
  priority: Type.Integer({ description: 'Review queue points (docs/api.md, "Overview")' }),
  reasons: Type.Array(Type.String(), { description: 'unreviewed, in_review, unknown_products, low_score, flagged_photos, unjoined_photos, missing_must_haves' }),
});
export const ReviewQueue = Type.Object({
  ...links,
  results: Type.Array(VisitRow),
  counts: Type.Object({
    unreviewed: Type.Integer(),
    in_review: Type.Integer(),
    unknown_products: Type.Integer(),
    low_score: Type.Integer(),
    flagged_photos: Type.Integer(),
    unjoined_photos: Type.Integer(),
  }, { description: 'Visits in the queue with each reason' }),
});
export const VisitList = Envelope(VisitRow);
export const VisitsBehindQuery = Type.Object({
  ...OverviewFilterProperties,
  ...PageQueryProperties,
  period: Type.Optional(Type.String({ maxLength: 10, description: 'Only the visits of this period (its first day, as the series gives it)' })),
  bucket: Type.Optional(BucketValue),
  sku: Type.Optional(Type.String({ maxLength: ID_MAX_LENGTH, description: 'Only the visits where this must-have was missing' })),
});

export const ExportQuery = Type.Object({
  ...OverviewFilterProperties,
  format: Type.String({ maxLength: 10, description: 'csv or xlsx' }),
});
export const VisitReportQuery = Type.Object({
  format: Type.Optional(Type.String({ maxLength: 10, description: 'pdf (the only one)' })),
});
