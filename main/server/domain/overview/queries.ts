// The overview's figures across visits: plain SQL over the facts projected when each visit was
// written (projection.ts), the same text on SQLite and PostgreSQL. Every figure is over the filtered
// visits: started in the range, of the shop, agent and review status asked, with a scene of the
// display asked, and with a product (on that display) of the brand and category asked. The
// product-level figures (missing must-haves, share of shelf) count only the products of that
// display, brand and category: a visit's products are projected per display ('*' for all), with
// their brand and category, so each filter is a range of an index. test/api/overview-queries.test.ts
// compares each with a slow computation in plain code.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../storage/schema.js';
import { addDays, dayOf, type OverviewFilters } from './filters.js';
import { ALL_DISPLAYS, ANY_CATEGORY, KPI_CIDS } from './projection.js';

export { KPI_CIDS };

type Db = Kysely<Database>;

export interface Paging {
  limit: number;
  offset: number;
}

const join = (parts: RawBuilder<unknown>[], sep = ' and ') => sql.join(parts, sql.raw(sep));
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const round2 = (v: unknown): number | null => (v === null || v === undefined ? null : Math.round(Number(v) * 100) / 100);

/** The display key of the products counted: the display asked, or all the visit's scenes. */
const displayKey = (f: OverviewFilters) => f.display ?? ALL_DISPLAYS;
/** Whether the products counted are narrowed to a display, brand or category. */
const narrowed = (f: OverviewFilters) => f.display !== undefined || f.brand !== undefined || f.category !== undefined;

/** The conditions on a projected product `p`: of the display (or all), brand and category asked. */
function productConditions(f: OverviewFilters, brand = true): RawBuilder<unknown> {
  const c: RawBuilder<unknown>[] = [sql`p.display_id = ${displayKey(f)}`];
  if (brand && f.brand !== undefined) c.push(sql`p.brand_id = ${f.brand}`);
  if (f.category !== undefined) c.push(sql`p.category_id = ${f.category}`);
  return join(c);
}

const inRange = (f: OverviewFilters, column: RawBuilder<unknown>) => sql`${column} >= ${f.from} and ${column} < ${f.end}`;

/**
 * The conditions on a projected visit `ov`: every filter. The display's and the products' are
 * semi-joins on a list read once from an index by the range (a correlated EXISTS per visit let
 * SQLite walk a whole display's index entries for each visit: 70 s on 10,000 visits).
 */
function visitConditions(f: OverviewFilters): RawBuilder<unknown> {
  const c: RawBuilder<unknown>[] = [inRange(f, sql.ref('ov.started_date'))];
  if (f.shop !== undefined) c.push(sql`ov.shop = ${f.shop}`);
  if (f.agent !== undefined) c.push(sql`ov.agent = ${f.agent}`);
  if (f.review !== undefined) c.push(sql`ov.review = ${f.review}`);
  if (f.display !== undefined) {
    c.push(sql`ov.visit_id in (select d.visit_id from overview_visit_displays d where d.display_id = ${f.display} and ${inRange(f, sql.ref('d.started_date'))})`);
  }
  if (f.brand !== undefined && f.display === undefined && f.category === undefined) {
    c.push(sql`exists (select 1 from overview_visit_brands b where b.visit_id = ov.visit_id and b.brand_id = ${f.brand})`);
  } else if (f.brand === undefined && f.category !== undefined) {
    c.push(sql`ov.visit_id in (select vc.visit_id from overview_visit_categories vc where vc.display_id = ${displayKey(f)} and vc.category_id = ${f.category} and ${inRange(f, sql.ref('vc.started_date'))})`);
  } else if (f.brand !== undefined) {
    // A brand on a display or in a category: from the visits' facings by display, category and brand
    // (a row per visit and brand where the product rows were dozens).
    c.push(sql`ov.visit_id in (select s.visit_id from overview_visit_shares s where s.display_id = ${displayKey(f)}
      and s.category_id = ${f.category ?? ANY_CATEGORY} and s.brand_id = ${f.brand} and ${inRange(f, sql.ref('s.started_date'))})`);
  }
  return join(c);
}

/**
 * Every per-visit figure of the filtered visits as the CTE `vr`, one row per visit; the must-haves
 * missing counted among the products of the display, brand and category asked (`missingToo` false:
 * a figure that does not show them, which saves reading the missing products: vr.missing is then the
 * visit's whole count).
 */
function perVisit(f: OverviewFilters, missingToo = true): RawBuilder<unknown> {
  const columns = sql`ov.visit_id as id, ov.name, ov.shop, ov.shop_name, ov.agent, ov.started_date, ov.review, ov.osa, ov.planogram, ov.facings, ov.price,
    ov.photos, ov.unknown_facings, ov.retaken, ov.flagged, ov.unjoined`;
  if (!narrowed(f) || !missingToo) return sql`with vr as (select ${columns}, ov.missing from overview_visits ov where ${visitConditions(f)})`;
  return sql`with bm as (
      select p.visit_id, count(*) as n from overview_visit_products p
      where p.missing = 1 and ${productConditions(f)} and ${inRange(f, sql.ref('p.started_date'))}
      group by p.visit_id),
    vr as (select ${columns}, coalesce(bm.n, 0) as missing from overview_visits ov left join bm on bm.visit_id = ov.visit_id where ${visitConditions(f)})`;
}

// ---- KPIs over time ----

export type Bucket = 'day' | 'week' | 'month';

export interface KpiPoint {
  period: string;
  visits: number;
  osa: number | null;
  planogram: number | null;
  facings: number | null;
  price: number | null;
}

interface Sums {
  visits: number;
  osa: [number, number];
  planogram: [number, number];
  facings: [number, number];
  price: [number, number];
}

/** The period a day falls in: the day, the Monday of its ISO week, or its month's first day. */
export function periodOf(day: string, bucket: Bucket): string {
  if (bucket === 'day') return day;
  if (bucket === 'month') return `${day.slice(0, 7)}-01`;
  const d = new Date(`${day}T00:00:00Z`);
  return dayOf(addDays(d, -((d.getUTCDay() + 6) % 7)));
}

/** The KPIs of the filtered visits per period: visits, mean OSA, planogram and price compliance (%), mean facings per visit. */
export async function kpiSeries(db: Db, f: OverviewFilters, bucket: Bucket): Promise<{ series: KpiPoint[]; totals: Omit<KpiPoint, 'period'> }> {
  const { rows } = await sql<Record<string, unknown>>`${perVisit(f, false)}
    select substr(started_date, 1, 10) as day, count(*) as visits,
      sum(osa) as osa_sum, count(osa) as osa_n, sum(planogram) as pl_sum, count(planogram) as pl_n,
      sum(facings) as fa_sum, count(facings) as fa_n, sum(price) as pr_sum, count(price) as pr_n
    from vr group by substr(started_date, 1, 10) order by day`.execute(db);
  const periods = new Map<string, Sums>();
  const total: Sums = { visits: 0, osa: [0, 0], planogram: [0, 0], facings: [0, 0], price: [0, 0] };
  for (const r of rows) {
    const key = periodOf(String(r.day), bucket);
    const s = periods.get(key) ?? { visits: 0, osa: [0, 0], planogram: [0, 0], facings: [0, 0], price: [0, 0] };
    for (const target of [s, total]) {
      target.visits += Number(r.visits);
      target.osa[0] += Number(r.osa_sum ?? 0);
      target.osa[1] += Number(r.osa_n);
      target.planogram[0] += Number(r.pl_sum ?? 0);
      target.planogram[1] += Number(r.pl_n);
      target.facings[0] += Number(r.fa_sum ?? 0);
      target.facings[1] += Number(r.fa_n);
      target.price[0] += Number(r.pr_sum ?? 0);
      target.price[1] += Number(r.pr_n);
    }
    periods.set(key, s);
  }
  const point = (s: Sums) => ({
    visits: s.visits,
    osa: s.osa[1] ? round2(s.osa[0] / s.osa[1]) : null,
    planogram: s.planogram[1] ? round2(s.planogram[0] / s.planogram[1]) : null,
    facings: s.facings[1] ? round2(s.facings[0] / s.facings[1]) : null,
    price: s.price[1] ? round2(s.price[0] / s.price[1]) : null,
  });
  return { series: [...periods].map(([period, s]) => ({ period, ...point(s) })), totals: point(total) };
}

// ---- Stores, worst first ----

export interface StoreRow {
  shop: string | null;
  shop_name: string | null;
  visits: number;
  osa: number | null;
  planogram: number | null;
  facings: number | null;
  price: number | null;
  missing: number;
  flagged: number;
  last_visit: string;
}

/** One row per shop: means of its visits' KPIs, must-haves missing (summed over visits); worst OSA first, then planogram. */
export async function stores(db: Db, f: OverviewFilters, page: Paging): Promise<{ count: number; results: StoreRow[] }> {
  const grouped = sql`select shop, max(shop_name) as shop_name, count(*) as visits, avg(osa) as osa, avg(planogram) as planogram,
      avg(facings) as facings, avg(price) as price, sum(missing) as missing, sum(flagged) as flagged, max(started_date) as last_visit
    from vr group by shop`;
  const { rows } = await sql<Record<string, unknown>>`${perVisit(f)}, g as (${grouped})
    select g.*, count(*) over () as total from g
    order by (case when osa is null then 1 else 0 end), osa, (case when planogram is null then 1 else 0 end), planogram,
      (case when shop is null then 1 else 0 end), shop
    limit ${page.limit} offset ${page.offset}`.execute(db);
  const count = rows.length ? Number(rows[0].total) : page.offset === 0 ? 0 : await countOf(db, sql`${perVisit(f)} select count(*) as n from (select shop from vr group by shop) x`);
  return {
    count,
    results: rows.map((r) => ({
      shop: (r.shop as string | null) ?? null,
      shop_name: (r.shop_name as string | null) ?? null,
      visits: Number(r.visits),
      osa: round2(r.osa),
      planogram: round2(r.planogram),
      facings: round2(r.facings),
      price: round2(r.price),
      missing: Number(r.missing ?? 0),
      flagged: Number(r.flagged ?? 0),
      last_visit: String(r.last_visit),
    })),
  };
}

async function countOf(db: Db, query: RawBuilder<unknown>): Promise<number> {
  const { rows } = await sql<{ n: unknown }>`${query}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

// ---- Missing must-haves by store ----

export interface MissingRow {
  shop: string | null;
  shop_name: string | null;
  sku: string;
  sku_name: string;
  /** Visits of the shop in the range where the must-have was missing. */
  visits: number;
  last_missing: string;
  /** The latest visit of the shop (up to the range's end, any filter aside) where the product was on the shelf; null if never. */
  last_seen: string | null;
}

/** The must-haves missing at each shop, most often missing first, with when each was last seen there. */
export async function missing(db: Db, f: OverviewFilters, page: Paging): Promise<{ count: number; results: MissingRow[] }> {
  // The product rows alone answer, read from their index: a row of the display asked exists only for
  // a visit with a scene of it, a missing product of the brand and category asked is one of the
  // visit's products of them. Only the visit's agent and review status need the visit's row.
  const visitFilter = f.agent !== undefined || f.review !== undefined;
  const base = sql`with m as (
      select p.shop, p.sku_id, count(*) as visits, max(p.started_date) as last_missing
      from overview_visit_products p ${visitFilter ? sql`join overview_visits ov on ov.visit_id = p.visit_id` : sql``}
      where p.missing = 1 and ${productConditions(f)} and ${inRange(f, sql.ref('p.started_date'))}
        ${f.shop !== undefined ? sql`and p.shop = ${f.shop}` : sql``}
        ${f.agent !== undefined ? sql`and ov.agent = ${f.agent}` : sql``}
        ${f.review !== undefined ? sql`and ov.review = ${f.review}` : sql``}
      group by p.shop, p.sku_id)`;
  return missingPage(db, f, page, base);
}

async function missingPage(db: Db, f: OverviewFilters, page: Paging, base: RawBuilder<unknown>): Promise<{ count: number; results: MissingRow[] }> {
  const { rows } = await sql<Record<string, unknown>>`${base}
    select m.*, k.name as sku_name, count(*) over () as total from m join skus k on k.id = m.sku_id
    order by m.visits desc, (case when m.shop is null then 1 else 0 end), m.shop, m.sku_id
    limit ${page.limit} offset ${page.offset}`.execute(db);
  const count = rows.length ? Number(rows[0].total) : page.offset === 0 ? 0 : await countOf(db, sql`${base} select count(*) as n from m`);
  const seen = new Map<string, string>();
  const shopNames = new Map<string, string | null>();
  if (rows.length > 0) {
    const pairs = rows.map((r) => (r.shop === null ? sql`(p.shop is null and p.sku_id = ${r.sku_id})` : sql`(p.shop = ${r.shop} and p.sku_id = ${r.sku_id})`));
    const { rows: last } = await sql<{ shop: string | null; sku_id: string; last: string }>`
      select p.shop, p.sku_id, max(p.started_date) as last from overview_visit_products p
      where p.present = 1 and p.started_date < ${f.end} and (${join(pairs, ' or ')})
      group by p.shop, p.sku_id`.execute(db);
    for (const r of last) seen.set(`${r.shop ?? ''}\u0000${r.sku_id}`, r.last);
    const shops = [...new Set(rows.map((r) => r.shop).filter((x): x is string => typeof x === 'string'))];
    if (shops.length) {
      const { rows: named } = await sql<{ shop: string; name: string | null }>`
        select v.shop, max(v.shop_name) as name from visits v
        where v.shop in (${join(shops.map((x) => sql`${x}`), ', ')}) and v.started_date >= ${f.from} and v.started_date < ${f.end} group by v.shop`.execute(db);
      for (const r of named) shopNames.set(r.shop, r.name);
    }
  }
  return {
    count,
    results: rows.map((r) => ({
      shop: (r.shop as string | null) ?? null,
      shop_name: typeof r.shop === 'string' ? (shopNames.get(r.shop) ?? null) : null,
      sku: String(r.sku_id),
      sku_name: String(r.sku_name),
      visits: Number(r.visits),
      last_missing: String(r.last_missing),
      last_seen: seen.get(`${(r.shop as string | null) ?? ''}\u0000${String(r.sku_id)}`) ?? null,
    })),
  };
}

// ---- Share of shelf by brand ----

export interface ShareRow {
  brand: string | null;
  brand_name: string | null;
  facings: number;
  /** Share of the identified facings, 0..1. */
  share: number;
}

/** Identified facings by brand over the filtered visits (products of the display and category asked); most first. */
export async function shareByBrand(db: Db, f: OverviewFilters): Promise<{ facings: number; unknown_facings: number; results: ShareRow[] }> {
  // The brand filter narrows the visits, never the denominator: a brand's share is of the whole shelf.
  if (f.display === undefined && f.category === undefined) {
    const { rows } = await sql<Record<string, unknown>>`
      select b.brand_id as brand, max(br.name) as brand_name, sum(b.facings) as facings
      from overview_visit_brands b join overview_visits ov on ov.visit_id = b.visit_id left join brands br on br.id = b.brand_id
      where b.facings > 0 and ${visitConditions(f)} group by b.brand_id`.execute(db);
    const { rows: unknown } = await sql<{ n: unknown }>`select sum(ov.unknown_facings) as n from overview_visits ov where ${visitConditions(f)}`.execute(db);
    return shares(rows.map((r) => ({ ...r, brand: r.brand === '' ? null : r.brand })), Number(unknown[0]?.n ?? 0));
  }
  // The products of the display and category asked, from their index; the visits' other filters
  // (a row of the display and category is already a visit with a scene and a product of them) by semi-join.
  // Read from the visits' facings by display, category and brand (overview_visit_shares).
  const visitsToo = f.shop !== undefined || f.agent !== undefined || f.review !== undefined || f.brand !== undefined;
  const inVisits = (column: RawBuilder<unknown>) => (visitsToo ? sql`and ${column} in (select ov.visit_id from overview_visits ov where ${visitConditions(f)})` : sql``);
  const { rows } = await sql<Record<string, unknown>>`
    select s.brand_id as brand, max(br.name) as brand_name, sum(s.facings) as facings
    from overview_visit_shares s left join brands br on br.id = s.brand_id
    where s.display_id = ${displayKey(f)} and s.category_id = ${f.category ?? ANY_CATEGORY} and s.facings > 0
      and ${inRange(f, sql.ref('s.started_date'))} ${inVisits(sql.ref('s.visit_id'))}
    group by s.brand_id`.execute(db);
  const { rows: unknown } =
    f.display !== undefined
      ? await sql<{ n: unknown }>`select sum(d.unknown_facings) as n from overview_visit_displays d
          where d.display_id = ${f.display} and ${inRange(f, sql.ref('d.started_date'))}
          ${visitsToo || f.category !== undefined ? sql`and d.visit_id in (select ov.visit_id from overview_visits ov where ${visitConditions(f)})` : sql``}`.execute(db)
      : await sql<{ n: unknown }>`select sum(ov.unknown_facings) as n from overview_visits ov where ${visitConditions(f)}`.execute(db);
  return shares(rows.map((r) => ({ ...r, brand: r.brand === '' ? null : r.brand })), Number(unknown[0]?.n ?? 0));
}

function shares(rows: Record<string, unknown>[], unknown: number): { facings: number; unknown_facings: number; results: ShareRow[] } {
  const total = rows.reduce((s, r) => s + Number(r.facings), 0);
  const results = rows
    .map((r) => ({ brand: (r.brand as string | null) ?? null, brand_name: (r.brand_name as string | null) ?? null, facings: Number(r.facings), share: total ? Number(r.facings) / total : 0 }))
    .sort((a, b) => b.facings - a.facings || (a.brand ?? '\uffff').localeCompare(b.brand ?? '\uffff'));
  return { facings: total, unknown_facings: unknown, results };
}

// ---- Auditors ----

export interface AgentRow {
  agent: string | null;
  agent_name: string | null;
  visits: number;
  photos: number;
  flagged: number;
  retaken: number;
}

/** Per auditor (the visit's agent): visits, photos, photos flagged by their pixel checks, photos retaken; most flagged and retaken first. */
export async function agentsOverview(db: Db, f: OverviewFilters, page: Paging): Promise<{ count: number; results: AgentRow[] }> {
  const { rows } = await sql<Record<string, unknown>>`${perVisit(f, false)},
    g as (select agent, count(*) as visits, sum(photos) as photos, sum(flagged) as flagged, sum(retaken) as retaken from vr group by agent)
    select g.*, a.name as agent_name, count(*) over () as total from g left join agents a on a.id = g.agent
    order by g.flagged + g.retaken desc, g.visits desc, (case when g.agent is null then 1 else 0 end), g.agent
    limit ${page.limit} offset ${page.offset}`.execute(db);
  const count = rows.length ? Number(rows[0].total) : page.offset === 0 ? 0 : await countOf(db, sql`${perVisit(f, false)} select count(*) as n from (select agent from vr group by agent) x`);
  return {
    count,
    results: rows.map((r) => ({
      agent: (r.agent as string | null) ?? null,
      agent_name: (r.agent_name as string | null) ?? null,
      visits: Number(r.visits),
      photos: Number(r.photos ?? 0),
      flagged: Number(r.flagged ?? 0),
      retaken: Number(r.retaken ?? 0),
    })),
  };
}

// ---- Visits: the review queue, click-through and exports ----

export interface VisitRow {
  visit: string;
  name: string | null;
  shop: string | null;
  shop_name: string | null;
  agent: string | null;
  started_date: string;
  review: string;
  osa: number | null;
  planogram: number | null;
  facings: number | null;
  price: number | null;
  photos: number;
  unknown_facings: number;
  flagged: number;
  /** Photos the bay's registration could not join to the others. */
  unjoined: number;
  retaken: number;
  missing: number;
  priority: number;
  reasons: string[];
}

/** Below this (percent), a visit's OSA, planogram or price compliance needs a look. */
export const LOW_SCORE = 80;

/**
 * How much a visit needs a person, in points: unreviewed 40 (in review 20), one per unknown facing
 * up to 20, 20 each for OSA, planogram and price compliance below LOW_SCORE, 10 per flagged photo up to 30,
 * 10 per photo not joined into the bay up to 20.
 */
const PRIORITY = sql<number>`(case review when 'unreviewed' then 40 when 'in_review' then 20 else 0 end)
  + (case when unknown_facings > 20 then 20 else unknown_facings end)
  + (case when osa < ${LOW_SCORE} then 20 else 0 end) + (case when planogram < ${LOW_SCORE} then 20 else 0 end)
  + (case when price < ${LOW_SCORE} then 20 else 0 end)
  + (case when flagged > 3 then 30 else flagged * 10 end)
  + (case when unjoined > 2 then 20 else unjoined * 10 end)`;

function visitRow(r: Record<string, unknown>): VisitRow {
  const row = {
    visit: String(r.id),
    name: (r.name as string | null) ?? null,
    shop: (r.shop as string | null) ?? null,
    shop_name: (r.shop_name as string | null) ?? null,
    agent: (r.agent as string | null) ?? null,
    started_date: String(r.started_date),
    review: String(r.review),
    osa: num(r.osa),
    planogram: num(r.planogram),
    facings: num(r.facings),
    price: num(r.price),
    photos: Number(r.photos),
    unknown_facings: Number(r.unknown_facings),
    flagged: Number(r.flagged),
    unjoined: Number(r.unjoined),
    retaken: Number(r.retaken),
    missing: Number(r.missing),
    priority: Number(r.priority),
  };
  const reasons: string[] = [];
  if (row.review !== 'reviewed') reasons.push(row.review);
  if (row.unknown_facings > 0) reasons.push('unknown_products');
  const low = (v: number | null) => v !== null && v < LOW_SCORE;
  if (low(row.osa) || low(row.planogram) || low(row.price)) reasons.push('low_score');
  if (row.flagged > 0) reasons.push('flagged_photos');
  if (row.unjoined > 0) reasons.push('unjoined_photos');
  if (row.missing > 0) reasons.push('missing_must_haves');
  return { ...row, reasons };
}

export interface QueueCounts {
  unreviewed: number;
  in_review: number;
  unknown_products: number;
  low_score: number;
  flagged_photos: number;
  unjoined_photos: number;
}

/** The visits that most need a person, highest priority first (then the latest); only those with a reason. */
export async function reviewQueue(db: Db, f: OverviewFilters, page: Paging): Promise<{ count: number; counts: QueueCounts; results: VisitRow[] }> {
  const ranked = sql`${perVisit(f)}, q as (select vr.*, ${PRIORITY} as priority from vr)`;
  const tally = sql`count(*) over () as n,
      sum(case when review = 'unreviewed' then 1 else 0 end) over () as unreviewed,
      sum(case when review = 'in_review' then 1 else 0 end) over () as in_review,
      sum(case when unknown_facings > 0 then 1 else 0 end) over () as unknown_products,
      sum(case when osa < ${LOW_SCORE} or planogram < ${LOW_SCORE} or price < ${LOW_SCORE} then 1 else 0 end) over () as low_score,
      sum(case when flagged > 0 then 1 else 0 end) over () as flagged_photos,
      sum(case when unjoined > 0 then 1 else 0 end) over () as unjoined_photos`;
  // The page and the counts in one pass over the visits; a page past the end counts on its own.
  const { rows } = await sql<Record<string, unknown>>`${ranked}
    select q.*, ${tally} from q where priority > 0 order by priority desc, started_date desc, id limit ${page.limit} offset ${page.offset}`.execute(db);
  const c = rows.length > 0 ? rows : (await sql<Record<string, unknown>>`${ranked} select ${tally} from q where priority > 0 limit 1`.execute(db)).rows;
  const k = c[0] ?? {};
  return {
    count: Number(k.n ?? 0),
    counts: {
      unreviewed: Number(k.unreviewed ?? 0),
      in_review: Number(k.in_review ?? 0),
      unknown_products: Number(k.unknown_products ?? 0),
      low_score: Number(k.low_score ?? 0),
      flagged_photos: Number(k.flagged_photos ?? 0),
      unjoined_photos: Number(k.unjoined_photos ?? 0),
    },
    results: rows.map(visitRow),
  };
}

/** Narrowing to the visits behind one figure: a period of the series, a shop's row, an auditor's, a missing product. */
export interface Behind {
  /** A period's first day and its bucket. */
  period?: string;
  bucket?: Bucket;
  /** With `shop` as given in the filters; `sku`: the visits where this must-have was missing. */
  sku?: string;
}

/** The filtered visits (narrowed to one figure's), latest first; also the rows of the period exports (keyset by `after`). */
export async function visitsOf(
  db: Db,
  f: OverviewFilters,
  options: Behind & { page?: Paging; after?: { started_date: string; id: string }; limit?: number } = {},
): Promise<{ count: number | null; results: VisitRow[] }> {
  let filters = f;
  if (options.period !== undefined) {
    const bucket = options.bucket ?? 'day';
    const start = new Date(`${options.period}T00:00:00Z`);
    const next = bucket === 'day' ? addDays(start, 1) : bucket === 'week' ? addDays(start, 7) : new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
    const from = options.period > f.from ? options.period : f.from;
    const end = dayOf(next) < f.end ? dayOf(next) : f.end;
    filters = { ...f, from, end };
  }
  const c: RawBuilder<unknown>[] = [sql`1 = 1`];
  if (options.sku !== undefined) {
    c.push(sql`exists (select 1 from overview_visit_products p where p.visit_id = vr.id and p.display_id = ${displayKey(filters)} and p.sku_id = ${options.sku} and p.missing = 1)`);
  }
  if (options.after) c.push(sql`(started_date < ${options.after.started_date} or (started_date = ${options.after.started_date} and id > ${options.after.id}))`);
  const where = join(c);
  const page = options.page ?? { limit: options.limit ?? 500, offset: 0 };
  // The count on its own: a window count over the page would sort every visit where the index gives the page in order.
  const { rows } = await sql<Record<string, unknown>>`${perVisit(filters)}
    select vr.*, ${PRIORITY} as priority from vr where ${where} order by started_date desc, id limit ${page.limit} offset ${page.offset}`.execute(db);
  const count = options.page ? await countOf(db, sql`${perVisit(filters)} select count(*) as n from vr where ${where}`) : null;
  return { count, results: rows.map(visitRow) };
}
