// The overview's facts (migration 0026): each scene's photos, facings and unknown facings, its
// identified products with their must-have status, and its photos' pixel measures, one row each, so
// the figures across thousands of visits are plain SQL aggregates instead of parsing report JSON on
// every read. A scene is projected again when its updated_at or its newest report's differs from
// what was projected, or when one of its photos has been measured since; facts of deleted scenes go.
// refresh() is called by each overview read; it does nothing while the database's change stamp is
// the one it last saw (any write moves it: storage/change-stamp.ts).
import { sql, type Kysely } from 'kysely';
import type { Selectable } from 'kysely';
import type { Database, OverviewPhotoTable } from '../../storage/schema.js';
import { judgePixels, type PixelMeasures, type QualityThresholds } from '../photo-checks.js';
import { readThresholds } from '../photo-quality.js';
import { KPI_CIDS } from './queries.js';
import type { ChangeStamp } from '../../storage/change-stamp.js';
import { write } from '../../storage/transaction.js';

type Db = Kysely<Database>;

/** Scenes projected per transaction: bounded statements, and other writes interleave between batches. */
const BATCH = 400;

const SOURCE = sql<string>`s.updated_at || '|' || coalesce((select max(r.updated_at) from reports r where r.scene_id = s.id), '')`;

interface FacingItem {
  sku_id: string | null;
  count: number;
}
interface MhlBody {
  records?: { mhl_record_id: string; compliant: boolean }[];
}

/** The scenes whose facts are missing or stale. */
async function staleScenes(db: Db): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select s.id from scenes s left join overview_scenes o on o.scene_id = s.id
    where o.scene_id is null or o.source <> ${SOURCE}
    union
    select distinct p.scene_id as id from overview_photos p join photo_measures m on m.upload_id = p.upload_id
    where p.width is null`.execute(db);
  return rows.map((r) => r.id);
}

/** Projects these scenes' facts, replacing what was there; answers the visits they belong (or belonged) to. */
export async function projectScenes(db: Db, sceneIds: readonly string[]): Promise<Set<string>> {
  const visits = new Set<string>();
  for (let i = 0; i < sceneIds.length; i += BATCH) {
    const ids = sceneIds.slice(i, i + BATCH);
    await write(db, async ({ trx }) => {
      const scenes = await trx
        .selectFrom('scenes as s')
        .select(['s.id', 's.visit_id', 's.display_id', 's.images', 's.created_at'])
        .select(SOURCE.as('source'))
        .where('s.id', 'in', ids)
        .execute();
      const reports = await trx
        .selectFrom('reports')
        .select(['scene_id', 'report_type', 'json', 'updated_at'])
        .where('scene_id', 'in', ids)
        .where('status', '=', 'READY')
        .where('report_type', 'in', ['FACING_COUNT', 'MHL_COMPLIANCE'])
        .orderBy('updated_at')
        .execute();
      // The newest report of each type per scene (a recomputation keeps the same row, but be safe).
      const newest = new Map<string, string>();
      for (const r of reports) if (r.json !== null) newest.set(`${r.scene_id}|${r.report_type}`, r.json);
      const mhlIds = new Set<string>();
      for (const [key, json] of newest) {
        if (key.endsWith('|MHL_COMPLIANCE')) for (const rec of (JSON.parse(json) as MhlBody).records ?? []) mhlIds.add(rec.mhl_record_id);
      }
      const mhlSku = new Map<string, string>();
      const mhlList = [...mhlIds];
      for (let j = 0; j < mhlList.length; j += 500) {
        const rows = await trx.selectFrom('mhl_records').select(['id', 'sku_id']).where('id', 'in', mhlList.slice(j, j + 500)).execute();
        for (const r of rows) mhlSku.set(r.id, r.sku_id);
      }
      const photoIds = [...new Set(scenes.flatMap((s) => imagesOf(s.images)))];
      const measures = new Map<string, PixelMeasures>();
      for (let j = 0; j < photoIds.length; j += 500) {
        const rows = await trx.selectFrom('photo_measures').select(['upload_id', 'measures']).where('upload_id', 'in', photoIds.slice(j, j + 500)).execute();
        for (const r of rows) measures.set(r.upload_id, JSON.parse(r.measures) as PixelMeasures);
      }
      for (const r of await trx.selectFrom('overview_scenes').select('visit_id').where('scene_id', 'in', ids).execute()) visits.add(r.visit_id);
      for (const s of scenes) visits.add(s.visit_id);
      for (const table of ['overview_scenes', 'overview_products', 'overview_photos'] as const) {
        await trx.deleteFrom(table).where('scene_id', 'in', ids).execute();
      }
      const sceneRows = [];
      const productRows = [];
      const photoRows = [];
      for (const s of scenes) {
        const facingJson = newest.get(`${s.id}|FACING_COUNT`);
        const mhlJson = newest.get(`${s.id}|MHL_COMPLIANCE`);
        const products = new Map<string, { facings: number; must_have: number | null }>();
        let facings = 0;
        let unknown = 0;
        for (const item of facingJson ? (JSON.parse(facingJson) as FacingItem[]) : []) {
          facings += item.count;
          if (item.sku_id === null) unknown += item.count;
          else products.set(item.sku_id, { facings: (products.get(item.sku_id)?.facings ?? 0) + item.count, must_have: null });
        }
        for (const rec of mhlJson ? ((JSON.parse(mhlJson) as MhlBody).records ?? []) : []) {
          const sku = mhlSku.get(rec.mhl_record_id);
          if (sku === undefined) continue;
          const p = products.get(sku) ?? { facings: 0, must_have: null };
          // A product listed twice is found if either record is.
          p.must_have = Math.max(p.must_have ?? 0, rec.compliant ? 1 : 0);
          products.set(sku, p);
        }
        const images = imagesOf(s.images);
        sceneRows.push({ scene_id: s.id, visit_id: s.visit_id, display_id: s.display_id, source: s.source, created_at: s.created_at, photos: images.length, facings, unknown_facings: unknown });
        for (const [sku_id, p] of products) productRows.push({ scene_id: s.id, visit_id: s.visit_id, sku_id, facings: p.facings, must_have: p.must_have });
        for (const upload_id of new Set(images)) {
          const m = measures.get(upload_id);
          photoRows.push({
            scene_id: s.id, upload_id, visit_id: s.visit_id,
            width: m?.width ?? null, height: m?.height ?? null, sharpness: m?.sharpness ?? null, brightness: m?.brightness ?? null,
            clipped: m?.clipped ?? null, glare: m?.glare ?? null, tilt: m?.tilt ?? null, convergence: m?.convergence ?? null,
          });
        }
      }
      await insertChunks(trx, 'overview_scenes', sceneRows);
      await insertChunks(trx, 'overview_products', productRows);
      await insertChunks(trx, 'overview_photos', photoRows);
    });
  }
  return visits;
}

type FactTable = 'overview_scenes' | 'overview_products' | 'overview_photos' | 'overview_visits' | 'overview_visit_products' | 'overview_visit_brands';

async function insertChunks(trx: Db, table: FactTable, rows: Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  // SQLite binds at most 32766 values per statement; 12 columns x 200 rows stays far below.
  for (let i = 0; i < rows.length; i += 200) await trx.insertInto(table).values(rows.slice(i, i + 200) as never).execute();
}

function imagesOf(json: string): string[] {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

const VISIT_SOURCE = sql<string>`v.updated_at || '|' || coalesce((select max(kv.updated_at) from kpi_values kv where kv.visit_id = v.id), '')`;

/** Visits whose figures are missing or stale (the visit row or its KPI values changed). */
async function staleVisits(db: Db): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select v.id from visits v left join overview_visits o on o.visit_id = v.id
    where o.visit_id is null or o.source <> ${VISIT_SOURCE}`.execute(db);
  return rows.map((r) => r.id);
}

const isFlagged = (p: Selectable<OverviewPhotoTable>, t: QualityThresholds): boolean =>
  p.width !== null && judgePixels({ ...(p as unknown as PixelMeasures), width: p.width, height: p.height ?? 0 }, t).length > 0;

/**
 * Projects these visits' figures from their rows, KPI values and scenes' facts (projected first),
 * replacing what was there; visits that no longer exist lose theirs.
 */
export async function projectVisits(db: Db, visitIds: readonly string[], t: QualityThresholds): Promise<void> {
  for (let i = 0; i < visitIds.length; i += BATCH) {
    const ids = visitIds.slice(i, i + BATCH);
    await write(db, async ({ trx }) => {
      const visits = await trx
        .selectFrom('visits as v')
        .select(['v.id', 'v.name', 'v.shop', 'v.shop_name', 'v.agent', 'v.started_date', 'v.moderation'])
        .select(VISIT_SOURCE.as('source'))
        .where('v.id', 'in', ids)
        .execute();
      const kpis = await trx
        .selectFrom('kpi_values as kv')
        .innerJoin('kpis as k', 'k.id', 'kv.kpi_id')
        .select(['kv.visit_id', 'k.cid', 'kv.value'])
        .where('kv.visit_id', 'in', ids)
        .where('kv.category_id', 'is', null)
        .where('k.cid', 'in', Object.values(KPI_CIDS))
        .execute();
      const scenes = await trx.selectFrom('overview_scenes').selectAll().where('visit_id', 'in', ids).execute();
      const products = await trx.selectFrom('overview_products').selectAll().where('visit_id', 'in', ids).execute();
      const photos = await trx.selectFrom('overview_photos').selectAll().where('visit_id', 'in', ids).execute();
      const skuIds = [...new Set(products.map((p) => p.sku_id))];
      const brandOf = new Map<string, string>();
      for (let j = 0; j < skuIds.length; j += 500) {
        for (const r of await trx.selectFrom('skus').select(['id', 'brand_id']).where('id', 'in', skuIds.slice(j, j + 500)).execute()) brandOf.set(r.id, r.brand_id ?? '');
      }
      for (const table of ['overview_visits', 'overview_visit_products', 'overview_visit_brands'] as const) {
        await trx.deleteFrom(table).where('visit_id', 'in', ids).execute();
      }
      const group = <T extends { visit_id: string }>(rows: T[]) => {
        const m = new Map<string, T[]>();
        for (const r of rows) m.set(r.visit_id, [...(m.get(r.visit_id) ?? []), r]);
        return m;
      };
      const scenesOf = group(scenes);
      const productsOf = group(products);
      const photosOf = group(photos);
      const kpisOf = group(kpis);
      const visitRows = [];
      const productRows = [];
      const brandRows = [];
      for (const v of visits) {
        const vs = scenesOf.get(v.id) ?? [];
        const kv = new Map((kpisOf.get(v.id) ?? []).map((k) => [k.cid, Number(k.value)]));
        // A scene of a display taken again later in the visit: its photos were retaken.
        const retaken = vs
          .filter((s) => s.display_id !== null && vs.some((o) => o.display_id === s.display_id && (o.created_at > s.created_at || (o.created_at === s.created_at && o.scene_id > s.scene_id))))
          .reduce((n, s) => n + s.photos, 0);
        const perSku = new Map<string, { present: boolean; listedMissing: boolean; found: boolean; facings: number }>();
        for (const p of productsOf.get(v.id) ?? []) {
          const e = perSku.get(p.sku_id) ?? { present: false, listedMissing: false, found: false, facings: 0 };
          e.facings += p.facings;
          if (p.facings > 0 || p.must_have === 1) e.present = true;
          if (p.must_have === 1) e.found = true;
          if (p.must_have === 0) e.listedMissing = true;
          perSku.set(p.sku_id, e);
        }
        let missing = 0;
        const brands = new Map<string, number>();
        for (const [sku_id, e] of perSku) {
          const isMissing = e.listedMissing && !e.found;
          if (isMissing) missing++;
          const brand = brandOf.get(sku_id) ?? '';
          productRows.push({ visit_id: v.id, sku_id, brand_id: brand || null, shop: v.shop, started_date: v.started_date, present: e.present ? 1 : 0, missing: isMissing ? 1 : 0 });
          brands.set(brand, (brands.get(brand) ?? 0) + e.facings);
        }
        for (const [brand_id, facings] of brands) brandRows.push({ visit_id: v.id, brand_id, facings });
        visitRows.push({
          visit_id: v.id, source: v.source, name: v.name, shop: v.shop, shop_name: v.shop_name, agent: v.agent, started_date: v.started_date,
          review: v.moderation ?? 'unreviewed',
          osa: kv.get(KPI_CIDS.osa) ?? null, planogram: kv.get(KPI_CIDS.planogram) ?? null, facings: kv.get(KPI_CIDS.facings) ?? null,
          photos: vs.reduce((n, s) => n + s.photos, 0),
          unknown_facings: vs.reduce((n, s) => n + s.unknown_facings, 0),
          retaken,
          flagged: (photosOf.get(v.id) ?? []).filter((p) => isFlagged(p, t)).length,
          missing,
        });
      }
      await insertChunks(trx, 'overview_visits', visitRows);
      await insertChunks(trx, 'overview_visit_products', productRows);
      await insertChunks(trx, 'overview_visit_brands', brandRows);
    });
  }
}

/**
 * Brings the facts up to date: stale and new scenes projected, those of deleted scenes removed, then
 * the figures of every visit they touch or whose row changed; all visits when the photo thresholds
 * changed since the flagged counts were judged. Answers how many scenes and visits it projected.
 */
export async function refreshFacts(db: Db): Promise<number> {
  const stale = await staleScenes(db);
  const visits = await projectScenes(db, stale);
  const { rows: gone } = await sql<{ scene_id: string; visit_id: string }>`select o.scene_id, o.visit_id from overview_scenes o where not exists (select 1 from scenes s where s.id = o.scene_id)`.execute(db);
  if (gone.length > 0) {
    for (const g of gone) visits.add(g.visit_id);
    await write(db, async ({ trx }) => {
      for (const table of ['overview_scenes', 'overview_products', 'overview_photos'] as const) {
        await sql`delete from ${sql.table(table)} where not exists (select 1 from scenes s where s.id = ${sql.ref(`${table}.scene_id`)})`.execute(trx);
      }
    });
  }
  const t = await readThresholds(db);
  const judged = await db.selectFrom('overview_state').select('value').where('name', '=', 'thresholds').executeTakeFirst();
  const rejudge = judged?.value !== JSON.stringify(t);
  const visitIds = rejudge ? (await db.selectFrom('visits').select('id').execute()).map((r) => r.id) : [...new Set([...visits, ...(await staleVisits(db))])];
  await projectVisits(db, visitIds, t);
  const { rows: orphans } = await sql<{ n: number }>`select count(*) as n from overview_visits o where not exists (select 1 from visits v where v.id = o.visit_id)`.execute(db);
  if (Number(orphans[0]?.n ?? 0) > 0) {
    await write(db, async ({ trx }) => {
      for (const table of ['overview_visits', 'overview_visit_products', 'overview_visit_brands'] as const) {
        await sql`delete from ${sql.table(table)} where not exists (select 1 from visits v where v.id = ${sql.ref(`${table}.visit_id`)})`.execute(trx);
      }
    });
  }
  if (rejudge) {
    await write(db, async ({ trx }) => {
      await trx.deleteFrom('overview_state').where('name', '=', 'thresholds').execute();
      await trx.insertInto('overview_state').values({ name: 'thresholds', value: JSON.stringify(t) }).execute();
    });
  }
  return stale.length + gone.length + visitIds.length + Number(orphans[0]?.n ?? 0);
}

const lastStamps = new WeakMap<Db, string>();
const running = new WeakMap<Db, Promise<void>>();

/**
 * refreshFacts, skipped while the change stamp is the one seen after the last refresh; concurrent
 * callers share one refresh. A null stamp (cannot be told) always refreshes.
 */
export async function ensureFacts(db: Db, stamp: ChangeStamp): Promise<void> {
  const before = await stamp();
  if (before !== null && lastStamps.get(db) === before) return;
  let run = running.get(db);
  if (!run) {
    run = (async () => {
      try {
        // A refresh that wrote moved the stamp itself: the next call checks again (and finds nothing).
        if ((await refreshFacts(db)) === 0 && before !== null) lastStamps.set(db, before);
      } finally {
        running.delete(db);
      }
    })();
    running.set(db, run);
  }
  await run;
}
