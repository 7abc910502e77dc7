// The overview's facts (migration 0030): per visit its figures, the displays it has scenes of, its
// products per display with their brand and category, its brands' facings and its photos' pixel
// measures, so the figures across thousands of visits are index reads instead of parsing report JSON.
//
// projectVisits() decides a visit's facts, and is the only code that does. Every transaction that
// writes what they come from (a visit's row, its scenes and their analysis, reports, KPI values,
// photo measures; scenes/, domain/visits.ts, domain/data-visits.ts, a sync pull or push) calls it
// before it commits, so the overview is current the moment the write is, and a read never projects.
// Explicit calls, not SQL triggers: triggers on these tables stalled the laptops' sync (reverted
// earlier), and the projection needs the report JSON parsed and the photo thresholds applied anyway.
// The visits stored before migration 0030 are projected once, by backfillFacts() at the server's start.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../storage/schema.js';
import { isPostgres } from '../../storage/dialect.js';
import { write } from '../../storage/transaction.js';
import { MIN_SHORT_SIDE, type PixelMeasures, type QualityThresholds } from '../photo-checks.js';
import { readThresholds } from '../photo-quality.js';

type Db = Kysely<Database>;

/** The display key of a visit's products over all its scenes. */
export const ALL_DISPLAYS = '*';

export const KPI_CIDS = {
  osa: 'shelf-audit:osa',
  planogram: 'shelf-audit:planogram-compliance',
  facings: 'shelf-audit:total-facings',
  price: 'shelf-audit:price-compliance',
} as const;

/** The report types the facts are read from; a result of another type changes them only through a KPI value. */
export const PROJECTED_REPORT_TYPES: ReadonlySet<string> = new Set(['FACING_COUNT', 'MHL_COMPLIANCE']);

/** Visits per statement batch: bounded `in` lists (SQLite binds at most 32766 values). */
const BATCH = 400;

interface FacingItem {
  sku_id: string | null;
  count: number;
}
interface MhlBody {
  records?: { mhl_record_id: string; compliant: boolean }[];
}
interface BayBody {
  bay?: { photos?: { joined?: boolean }[] };
}

const FACT_TABLES = ['overview_visits', 'overview_visit_displays', 'overview_visit_products', 'overview_visit_categories', 'overview_visit_brands', 'overview_visit_shares', 'overview_photos'] as const;

/** The category key of a visit's facings over all categories (overview_visit_shares). */
export const ANY_CATEGORY = '*';

/** A photo judged by its pixel measures to need a look or a retake (photo-checks.ts judgePixels, any issue), as SQL over `ph`. */
export function flaggedPhoto(t: QualityThresholds): RawBuilder<number> {
  return sql<number>`case when ph.width is null then 0
    when (case when ph.width < ph.height then ph.width else ph.height end) < ${MIN_SHORT_SIDE}
      or ph.sharpness < ${t.min_sharpness} or ph.brightness < ${t.min_brightness} or ph.brightness > ${t.max_brightness}
      or ph.clipped > ${t.max_clipped} or (ph.glare > ${t.max_glare} and ph.brightness <= ${t.max_brightness})
      or abs(ph.tilt) > ${t.max_tilt} or ph.convergence > ${t.max_convergence} then 1 else 0 end`;
}

/**
 * Judges the visits' photos again under thresholds `t` (all visits when `visitIds` is null): the
 * flagged count of each. Called by projectVisits, and when the photo thresholds change.
 */
export async function judgeFlagged(trx: Db, visitIds: readonly string[] | null, t: QualityThresholds): Promise<void> {
  const count = sql`coalesce((select sum(${flaggedPhoto(t)}) from overview_photos ph where ph.visit_id = overview_visits.visit_id), 0)`;
  if (visitIds === null) {
    await sql`update overview_visits set flagged = ${count}`.execute(trx);
    return;
  }
  for (let i = 0; i < visitIds.length; i += BATCH) {
    const ids = visitIds.slice(i, i + BATCH);
    await sql`update overview_visits set flagged = ${count} where visit_id in (${sql.join(ids.map((id) => sql`${id}`))})`.execute(trx);
  }
}

/**
 * Decides the overview's facts of these visits from what is stored now, in the caller's transaction,
 * replacing what was there; a visit that no longer exists loses its facts. The one place that says
 * what a visit's figures are.
 */
export async function projectVisits(trx: Db, visitIds: Iterable<string>): Promise<void> {
  const all = [...new Set(visitIds)].sort();
  if (all.length === 0) return;
  const t = await readThresholds(trx);
  for (let i = 0; i < all.length; i += BATCH) await projectBatch(trx, all.slice(i, i + BATCH), t);
}

async function projectBatch(trx: Db, ids: string[], t: QualityThresholds): Promise<void> {
  // PostgreSQL: two transactions writing scenes of one visit each project it; the row lock makes
  // the second read (read committed) after the first commits, so neither leaves the other's scene out.
  let visitQuery = trx.selectFrom('visits as v').select(['v.id', 'v.name', 'v.shop', 'v.shop_name', 'v.agent', 'v.started_date', 'v.moderation']).where('v.id', 'in', ids).orderBy('v.id');
  if (isPostgres(trx)) visitQuery = visitQuery.forUpdate();
  const visits = await visitQuery.execute();
  const scenes = await trx
    .selectFrom('scenes')
    .select(['id', 'visit_id', 'display_id', 'images', 'created_at', 'analysis'])
    .where('visit_id', 'in', ids)
    .execute();
  const sceneIds = scenes.map((s) => s.id);
  const newest = new Map<string, string>();
  for (let j = 0; j < sceneIds.length; j += 500) {
    const reports = await trx
      .selectFrom('reports')
      .select(['scene_id', 'report_type', 'json', 'updated_at'])
      .where('scene_id', 'in', sceneIds.slice(j, j + 500))
      .where('status', '=', 'READY')
      .where('report_type', 'in', [...PROJECTED_REPORT_TYPES])
      .execute();
    // The newest READY report of each type per scene (a review's recomputation adds rows).
    reports.sort((a, b) => (a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : 0));
    for (const r of reports) if (r.json !== null) newest.set(`${r.scene_id}|${r.report_type}`, r.json);
  }
  const mhlIds = new Set<string>();
  const mhlOf = new Map<string, NonNullable<MhlBody['records']>>();
  for (const [key, json] of newest) {
    if (!key.endsWith('|MHL_COMPLIANCE')) continue;
    const records = parse<MhlBody>(json)?.records ?? [];
    mhlOf.set(key.slice(0, -'|MHL_COMPLIANCE'.length), records);
    for (const rec of records) mhlIds.add(rec.mhl_record_id);
  }
  const mhlSku = await lookup(trx, 'mhl_records', [...mhlIds], (r) => r.sku_id as string, ['sku_id']);
  const facingsOf = new Map<string, FacingItem[]>();
  const skuIds = new Set<string>(mhlSku.values());
  for (const [key, json] of newest) {
    if (!key.endsWith('|FACING_COUNT')) continue;
    const items = parse<FacingItem[]>(json);
    const list = Array.isArray(items) ? items : [];
    facingsOf.set(key.slice(0, -'|FACING_COUNT'.length), list);
    for (const item of list) if (item.sku_id !== null) skuIds.add(item.sku_id);
  }
  const skus = await lookup(trx, 'skus', [...skuIds], (r) => ({ brand: (r.brand_id as string | null) ?? null, category: (r.category_id as string | null) ?? null }), ['brand_id', 'category_id']);
  const photoIds = [...new Set(scenes.flatMap((s) => imagesOf(s.images)))];
  const measures = await lookup(trx, 'photo_measures', photoIds, (r) => parse<PixelMeasures>(r.measures as string), ['measures'], 'upload_id');
  const kpis = await trx
    .selectFrom('kpi_values as kv')
    .innerJoin('kpis as k', 'k.id', 'kv.kpi_id')
    .select(['kv.visit_id', 'k.cid', 'kv.value'])
    .where('kv.visit_id', 'in', ids)
    .where('kv.category_id', 'is', null)
    .where('k.cid', 'in', Object.values(KPI_CIDS))
    .execute();

  for (const table of FACT_TABLES) await trx.deleteFrom(table).where('visit_id', 'in', ids).execute();

  const scenesOf = groupBy(scenes, (s) => s.visit_id);
  const kpisOf = groupBy(kpis, (k) => k.visit_id);
  const rows = { visits: [] as Row[], displays: [] as Row[], products: [] as Row[], categories: [] as Row[], brands: [] as Row[], photos: [] as Row[] };
  for (const v of visits) {
    const vs = scenesOf.get(v.id) ?? [];
    const kv = new Map((kpisOf.get(v.id) ?? []).map((k) => [k.cid, Number(k.value)]));
    // Per display key ('*' and each display): per product, facings, listed missing, found.
    const perDisplay = new Map<string, Map<string, { facings: number; listedMissing: boolean; found: boolean }>>();
    const unknownOf = new Map<string, number>();
    const entry = (display: string, sku: string) => {
      let products = perDisplay.get(display);
      if (!products) perDisplay.set(display, (products = new Map()));
      let e = products.get(sku);
      if (!e) products.set(sku, (e = { facings: 0, listedMissing: false, found: false }));
      return e;
    };
    let photos = 0;
    let unknown = 0;
    let unjoined = 0;
    let retaken = 0;
    const photoSet = new Set<string>();
    for (const s of vs) {
      const keys = s.display_id === null ? [ALL_DISPLAYS] : [ALL_DISPLAYS, s.display_id];
      if (s.display_id !== null && !unknownOf.has(s.display_id)) unknownOf.set(s.display_id, 0);
      for (const item of facingsOf.get(s.id) ?? []) {
        const count = Number(item.count) || 0;
        if (item.sku_id === null) {
          unknown += count;
          if (s.display_id !== null) unknownOf.set(s.display_id, unknownOf.get(s.display_id)! + count);
        } else for (const key of keys) entry(key, item.sku_id).facings += count;
      }
      for (const rec of mhlOf.get(s.id) ?? []) {
        const sku = mhlSku.get(rec.mhl_record_id);
        if (sku === undefined) continue;
        for (const key of keys) {
          const e = entry(key, sku);
          // A product listed twice is found if either record is.
          if (rec.compliant) e.found = true;
          else e.listedMissing = true;
        }
      }
      const images = imagesOf(s.images);
      photos += images.length;
      for (const id of images) photoSet.add(id);
      // A scene of a display taken again later in the visit: its photos were retaken.
      if (s.display_id !== null && vs.some((o) => o.display_id === s.display_id && (o.created_at > s.created_at || (o.created_at === s.created_at && o.id > s.id)))) retaken += images.length;
      // Photos the bay's registration could not join (recognition/bay/register.ts).
      if (s.analysis !== null && s.analysis.includes('"bay"')) unjoined += (parse<BayBody>(s.analysis)?.bay?.photos ?? []).filter((p) => p.joined === false).length;
    }
    // A must-have is missing when listed missing and found on none of the visit's scenes.
    const foundAnywhere = new Set([...(perDisplay.get(ALL_DISPLAYS) ?? new Map())].filter(([, e]) => e.found).map(([sku]) => sku));
    let missing = 0;
    const brands = new Map<string, number>();
    for (const [display, products] of perDisplay) {
      const categories = new Set<string>();
      for (const [sku, e] of products) {
        const isMissing = e.listedMissing && !foundAnywhere.has(sku);
        const k = skus.get(sku);
        const whole = display === ALL_DISPLAYS;
        if (whole) {
          if (isMissing) missing++;
          const brand = k?.brand ?? '';
          brands.set(brand, (brands.get(brand) ?? 0) + e.facings);
        }
        rows.products.push({
          visit_id: v.id, display_id: display, sku_id: sku, brand_id: k?.brand ?? null, category_id: k?.category ?? null, shop: v.shop, started_date: v.started_date,
          facings: e.facings, present: whole && (e.facings > 0 || e.found) ? 1 : 0, missing: isMissing ? 1 : 0,
        });
        if (k?.category) categories.add(k.category);
      }
      for (const category_id of categories) rows.categories.push({ visit_id: v.id, display_id: display, category_id, started_date: v.started_date });
    }
    for (const [brand_id, facings] of brands) rows.brands.push({ visit_id: v.id, brand_id, facings });
    for (const [display_id, n] of unknownOf) rows.displays.push({ visit_id: v.id, display_id, started_date: v.started_date, unknown_facings: n });
    for (const upload_id of photoSet) {
      const m = measures.get(upload_id) ?? null;
      rows.photos.push({
        visit_id: v.id, upload_id, width: num(m?.width), height: num(m?.height), sharpness: num(m?.sharpness), brightness: num(m?.brightness),
        clipped: num(m?.clipped), glare: num(m?.glare), tilt: num(m?.tilt), convergence: num(m?.convergence),
      });
    }
    rows.visits.push({
      visit_id: v.id, name: v.name, shop: v.shop, shop_name: v.shop_name, agent: v.agent, started_date: v.started_date,
      review: v.moderation ?? 'unreviewed',
      osa: kv.get(KPI_CIDS.osa) ?? null, planogram: kv.get(KPI_CIDS.planogram) ?? null, facings: kv.get(KPI_CIDS.facings) ?? null,
      price: kv.get(KPI_CIDS.price) ?? null,
      photos, unknown_facings: unknown, retaken, flagged: 0, unjoined, missing,
    });
  }
  await insertChunks(trx, 'overview_visits', rows.visits);
  await insertChunks(trx, 'overview_visit_displays', rows.displays);
  await insertChunks(trx, 'overview_visit_products', rows.products);
  await insertChunks(trx, 'overview_visit_categories', rows.categories);
  await insertChunks(trx, 'overview_visit_brands', rows.brands);
  await insertChunks(trx, 'overview_photos', rows.photos);
  await rebuildShares(trx, visits.map((v) => v.id));
  // Flagged by the same SQL that judges them again when the thresholds change.
  await judgeFlagged(trx, visits.map((v) => v.id), t);
}

type Row = Record<string, unknown>;

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function parse<T>(json: string): T | null {
  try {
    return JSON.parse(json) as T;
  } catch {
    return null;
  }
}

function imagesOf(json: string): string[] {
  const v = parse<unknown>(json);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function groupBy<T>(rows: T[], key: (r: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = m.get(k);
    if (list) list.push(r);
    else m.set(k, [r]);
  }
  return m;
}

async function lookup<V>(trx: Db, table: 'mhl_records' | 'skus' | 'photo_measures', ids: string[], value: (r: Row) => V, columns: string[], idColumn = 'id'): Promise<Map<string, V>> {
  const out = new Map<string, V>();
  for (let j = 0; j < ids.length; j += 500) {
    const rows = await trx
      .selectFrom(table as 'skus')
      .select([idColumn, ...columns] as never)
      .where(idColumn as 'id', 'in', ids.slice(j, j + 500))
      .execute();
    for (const r of rows as Row[]) out.set(r[idColumn] as string, value(r));
  }
  return out;
}

/** The visits' facings by display, category and brand (overview_visit_shares), from their product facts in SQL (their old rows deleted already). */
async function rebuildShares(trx: Db, visitIds: readonly string[]): Promise<void> {
  for (let i = 0; i < visitIds.length; i += BATCH) {
    const list = sql.join(visitIds.slice(i, i + BATCH).map((id) => sql`${id}`));
    await sql`insert into overview_visit_shares (visit_id, display_id, category_id, brand_id, started_date, facings)
      select visit_id, display_id, coalesce(category_id, ''), coalesce(brand_id, ''), max(started_date), sum(facings)
      from overview_visit_products where visit_id in (${list}) group by visit_id, display_id, coalesce(category_id, ''), coalesce(brand_id, '')`.execute(trx);
    await sql`insert into overview_visit_shares (visit_id, display_id, category_id, brand_id, started_date, facings)
      select visit_id, display_id, ${sql.lit(ANY_CATEGORY)}, coalesce(brand_id, ''), max(started_date), sum(facings)
      from overview_visit_products where visit_id in (${list}) group by visit_id, display_id, coalesce(brand_id, '')`.execute(trx);
  }
}

async function insertChunks(trx: Db, table: (typeof FACT_TABLES)[number], rows: Row[]): Promise<void> {
  // SQLite binds at most 32766 values per statement; 11 columns x 200 rows stays far below.
  for (let i = 0; i < rows.length; i += 200) await trx.insertInto(table).values(rows.slice(i, i + 200) as never).execute();
}

// ---- An SKU's brand or category changed ----

/**
 * The facts of these SKUs take their brand and category as stored now, in the caller's transaction:
 * their product rows, and what is made from them (the per-visit brands, categories and shares), so
 * every overview figure counts a moved SKU under its new brand or category at once, for the visits
 * already stored too. Set-based SQL over the facts, no report read again, and only the rows the move
 * can change: of the visits and displays showing the SKUs, of their old and new brands and
 * categories (rebuilding whole visits cost 5 ms of CPU per visit on SQLite; this, about 0.5).
 * Compares the facts with the SKUs as stored now, so it needs nothing read before the write: for an
 * SKU whose brand and category did not move it is one indexed read. Answers how many visits' facts changed.
 */
export async function reclassifySkus(trx: Db, skuIds: Iterable<string>): Promise<number> {
  const ids = [...new Set(skuIds)].sort();
  if (ids.length === 0) return 0;
  const visits = new Set<string>();
  // The brand and category keys the facts use ('' for none), old and new: the rows made from them.
  const brands = new Set<string>();
  const categories = new Set<string>([ANY_CATEGORY]);
  const brandNow = sql`(select k.brand_id from skus k where k.id = overview_visit_products.sku_id)`;
  const categoryNow = sql`(select k.category_id from skus k where k.id = overview_visit_products.sku_id)`;
  const differs = sql`(coalesce(brand_id, '') <> coalesce(${brandNow}, '') or coalesce(category_id, '') <> coalesce(${categoryNow}, ''))`;
  const moved: string[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const batch = sql.join(ids.slice(i, i + 500).map((id) => sql`${id}`));
    const { rows } = await sql<{ visit_id: string; sku_id: string; brand: string; category: string }>`
      select distinct visit_id, sku_id, coalesce(brand_id, '') as brand, coalesce(category_id, '') as category
      from overview_visit_products where sku_id in (${batch}) and ${differs}`.execute(trx);
    if (rows.length === 0) continue;
    for (const r of rows) {
      visits.add(r.visit_id);
      moved.push(r.sku_id);
      brands.add(r.brand);
      categories.add(r.category);
    }
    await sql`update overview_visit_products set brand_id = ${brandNow}, category_id = ${categoryNow} where sku_id in (${batch}) and ${differs}`.execute(trx);
  }
  if (visits.size === 0) return 0;
  const skus = [...new Set(moved)];
  for (const k of await trx.selectFrom('skus').select(['brand_id', 'category_id']).where('id', 'in', skus).execute()) {
    brands.add(k.brand_id ?? '');
    categories.add(k.category_id ?? '');
  }
  const list = (xs: Iterable<string>) => sql.join([...xs].map((x) => sql`${x}`));
  // A row of a visit's display the moved SKUs are on (the product rows' primary key finds it).
  const showing = (table: RawBuilder<unknown>) =>
    sql`exists (select 1 from overview_visit_products m where m.sku_id in (${list(skus)}) and m.visit_id = ${table}.visit_id and m.display_id = ${table}.display_id)`;
  const all = [...visits].sort();
  for (let i = 0; i < all.length; i += BATCH) {
    const ids = list(all.slice(i, i + BATCH));
    // As projectBatch makes them: per visit, the facings of each brand ('' for none) over all its scenes' products.
    await sql`delete from overview_visit_brands where visit_id in (${ids})`.execute(trx);
    await sql`insert into overview_visit_brands (visit_id, brand_id, facings)
      select visit_id, coalesce(brand_id, ''), sum(facings) from overview_visit_products
      where display_id = ${ALL_DISPLAYS} and visit_id in (${ids}) group by visit_id, coalesce(brand_id, '')`.execute(trx);
    // The categories a visit has products of per display, on the displays showing the SKUs.
    const named = [...categories].filter((c) => c !== '' && c !== ANY_CATEGORY);
    const cats = list(named);
    if (named.length > 0) await sql`delete from overview_visit_categories where visit_id in (${ids}) and category_id in (${cats}) and ${showing(sql.raw('overview_visit_categories'))}`.execute(trx);
    if (named.length > 0) await sql`insert into overview_visit_categories (visit_id, display_id, category_id, started_date)
      select p.visit_id, p.display_id, p.category_id, max(p.started_date) from overview_visit_products p
      where p.visit_id in (${ids}) and p.category_id in (${cats}) and ${showing(sql.raw('p'))}
      group by p.visit_id, p.display_id, p.category_id`.execute(trx);
    // The shares of those displays, of the old and new brands and categories (and of any category).
    await sql`delete from overview_visit_shares where visit_id in (${ids}) and brand_id in (${list(brands)}) and category_id in (${list(categories)})
      and ${showing(sql.raw('overview_visit_shares'))}`.execute(trx);
    const products = sql`from overview_visit_products p where p.visit_id in (${ids}) and coalesce(p.brand_id, '') in (${list(brands)}) and ${showing(sql.raw('p'))}`;
    await sql`insert into overview_visit_shares (visit_id, display_id, category_id, brand_id, started_date, facings)
      select p.visit_id, p.display_id, coalesce(p.category_id, ''), coalesce(p.brand_id, ''), max(p.started_date), sum(p.facings)
      ${products} and coalesce(p.category_id, '') in (${list(categories)})
      group by p.visit_id, p.display_id, coalesce(p.category_id, ''), coalesce(p.brand_id, '')`.execute(trx);
    await sql`insert into overview_visit_shares (visit_id, display_id, category_id, brand_id, started_date, facings)
      select p.visit_id, p.display_id, ${sql.lit(ANY_CATEGORY)}, coalesce(p.brand_id, ''), max(p.started_date), sum(p.facings)
      ${products} group by p.visit_id, p.display_id, coalesce(p.brand_id, '')`.execute(trx);
  }
  return all.length;
}

// ---- Which visits a write touches ----

/** The visits of these records (scenes, reports, KPI values, visits themselves), as stored now. */
export async function visitsOfRecords(trx: Db, entity: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  if (entity === 'visit') return [...ids];
  const table = entity === 'scene' ? 'scenes' : entity === 'report' ? 'reports' : entity === 'kpi_value' ? 'kpi_values' : null;
  if (table === null) return [];
  const out: string[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await trx.selectFrom(table).select('visit_id').where('id', 'in', ids.slice(i, i + 500)).execute();
    for (const r of rows) if (r.visit_id !== null) out.push(r.visit_id);
  }
  return out;
}

/**
 * The visits of a batch of synced changes (those of visits, scenes, reports and KPI values), as
 * stored now: ask for deletions before they are applied, for upserts after.
 */
export async function visitsOfChanges(trx: Db, changes: readonly { entity: string; id: string }[]): Promise<string[]> {
  const byEntity = new Map<string, string[]>();
  for (const c of changes) byEntity.set(c.entity, [...(byEntity.get(c.entity) ?? []), c.id]);
  const out: string[] = [];
  for (const [entity, ids] of byEntity) out.push(...(await visitsOfRecords(trx, entity, ids)));
  return out;
}

/** The visits showing this photo (its measures just stored). */
export async function visitsOfPhoto(trx: Db, uploadId: string): Promise<string[]> {
  const rows = await trx.selectFrom('overview_photos').select('visit_id').where('upload_id', '=', uploadId).execute();
  return rows.map((r) => r.visit_id);
}

// ---- Once after migration 0030 ----

/** Visits per backfill transaction: other writes interleave between them. */
const BACKFILL_BATCH = 500;

/**
 * Projects every stored visit once, after migration 0030 (or after projectAll), in transactions of
 * BACKFILL_BATCH visits by id, its cursor kept in overview_state so a restart goes on where it
 * stopped. Writes meanwhile project their own visits as always. Answers how many visits it projected.
 */
export async function backfillFacts(db: Db): Promise<number> {
  let done = 0;
  for (;;) {
    const state = await db.selectFrom('overview_state').select('value').where('name', '=', 'backfill').executeTakeFirst();
    if (!state) return done;
    const after = state.value;
    const more = await write(db, async ({ trx }) => {
      const ids = (await trx.selectFrom('visits').select('id').where('id', '>', after).orderBy('id').limit(BACKFILL_BATCH).execute()).map((r) => r.id);
      await projectVisits(trx, ids);
      await trx.deleteFrom('overview_state').where('name', '=', 'backfill').execute();
      if (ids.length === BACKFILL_BATCH) await trx.insertInto('overview_state').values({ name: 'backfill', value: ids.at(-1)! }).execute();
      done += ids.length;
      return ids.length === BACKFILL_BATCH;
    });
    if (!more) {
      // PostgreSQL plans from statistics, and reads an index alone only where the visibility map is
      // set, both of which bulk inserts leave undone until autovacuum comes by.
      if (isPostgres(db) && done > 0) await sql`vacuum (analyze) ${sql.join(FACT_TABLES.map((t) => sql.table(t)))}`.execute(db);
      return done;
    }
  }
}

const backfills = new WeakMap<Db, Promise<void>>();

/**
 * Resolves once no backfill is pending (the server's start begins the one after migration 0030;
 * a caller finding one pending and none running starts it). Overview reads wait for it rather than
 * answer from half the visits; otherwise it costs them one read of a primary key.
 */
export async function factsReady(db: Db): Promise<void> {
  let run = backfills.get(db);
  if (!run) {
    const pending = await db.selectFrom('overview_state').select('name').where('name', '=', 'backfill').executeTakeFirst();
    if (!pending) return;
    run = backfills.get(db);
    if (!run) {
      run = backfillFacts(db)
        .then(() => undefined)
        .finally(() => backfills.delete(db));
      backfills.set(db, run);
    }
  }
  await run;
}

/** Projects every visit again (the data was written around the domain code: a test's or a bench's seed). */
export async function projectAll(db: Db): Promise<number> {
  await write(db, async ({ trx }) => {
    for (const table of FACT_TABLES) await trx.deleteFrom(table).execute();
    await trx.deleteFrom('overview_state').where('name', '=', 'backfill').execute();
    await trx.insertInto('overview_state').values({ name: 'backfill', value: '' }).execute();
  });
  return backfillFacts(db);
}
