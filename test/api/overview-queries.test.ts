// The overview's aggregate queries (domain/overview/queries.ts) against a slow computation in plain
// code over the same random visits (bench/overview-seed.mjs), on SQLite and on PostgreSQL, for random
// filters; and the projection kept up to date when reports change and scenes go.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgePixels, DEFAULT_THRESHOLDS, type PixelMeasures } from '../../main/server/domain/photo-checks.js';
import { readFilters, type OverviewFilters, type OverviewQuery } from '../../main/server/domain/overview/filters.js';
import { projectAll, projectVisits } from '../../main/server/domain/overview/projection.js';
import { saveThresholds } from '../../main/server/domain/photo-quality.js';
import { write } from '../../main/server/storage/transaction.js';
import { updateRecord } from '../../main/server/domain/resource.js';
import { skus as skuResource } from '../../main/server/domain/skus.js';
import { importMasterData } from '../../main/server/domain/import.js';
import { applyPull } from '../../main/server/sync/device-store.js';
import {
  agentsOverview, kpiSeries, missing, periodOf, reviewQueue, shareByBrand, stores, visitsOf, LOW_SCORE, type Bucket,
} from '../../main/server/domain/overview/queries.js';
import { openDatabase, openDatabaseTarget, type OpenDatabase } from '../../main/server/storage/database.js';
import type { Database } from '../../main/server/storage/schema.js';
import { overviewData, prng, seedOverview } from '../../bench/overview-seed.mjs';
import { PgCluster } from '../../scripts/pg-cluster.mjs';

type Row = Record<string, any>;
type Data = Record<string, Row[]>;
const T = DEFAULT_THRESHOLDS;
const ALL = { limit: 10_000, offset: 0 };
const CIDS = { osa: 'shelf-audit:osa', planogram: 'shelf-audit:planogram-compliance', facings: 'shelf-audit:total-facings', price: 'shelf-audit:price-compliance' };
/** Deep equality where means may differ by the last rounded digit (sums in another order). */
function expectClose(got: unknown, want: unknown, label: string): void {
  const near = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(near) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, near(x)])) : typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 10) / 10 : v;
  try {
    expect(near(got), label).toEqual(near(want));
  } catch (e) {
    // Rounding to a tenth can itself split two values 0.01 apart: then compare those numbers by distance.
    const flat = (v: unknown, out: unknown[] = []): unknown[] => (Array.isArray(v) ? v.forEach((x) => flat(x, out)) : v && typeof v === 'object' ? Object.values(v).forEach((x) => flat(x, out)) : out.push(v), out);
    const a = flat(got);
    const b = flat(want);
    expect(a.length, label).toBe(b.length);
    a.forEach((x, i) => (typeof x === 'number' && typeof b[i] === 'number' ? expect(Math.abs(x - (b[i] as number)), label).toBeLessThanOrEqual(0.011) : expect(x, label).toEqual(b[i])));
    void e;
  }
}
const mean = (xs: number[]) => (xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100 : null);

/** The slow computation: everything from the generated rows, no SQL. */
function reference(t: Data) {
  const skus = new Map(t.skus.map((s) => [s.id, s]));
  const mhlSku = new Map(t.mhl_records.map((r) => [r.id, r.sku_id]));
  const measures = new Map(t.photo_measures.map((m) => [m.upload_id, JSON.parse(m.measures) as PixelMeasures]));
  const scenesOf = new Map<string, Row[]>();
  for (const s of t.scenes) scenesOf.set(s.visit_id, [...(scenesOf.get(s.visit_id) ?? []), s]);
  // Per scene: products (sku -> facings, must_have) and unknown facings, from READY reports.
  const facts = new Map<string, { products: Map<string, { facings: number; must_have: number | null }>; unknown: number; facings: number }>();
  for (const s of t.scenes) facts.set(s.id, { products: new Map(), unknown: 0, facings: 0 });
  for (const r of t.reports) {
    if (r.status !== 'READY' || r.json === null) continue;
    const f = facts.get(r.scene_id)!;
    if (r.report_type === 'FACING_COUNT') {
      for (const it of JSON.parse(r.json)) {
        f.facings += it.count;
        if (it.sku_id === null) f.unknown += it.count;
        else f.products.set(it.sku_id, { facings: (f.products.get(it.sku_id)?.facings ?? 0) + it.count, must_have: f.products.get(it.sku_id)?.must_have ?? null });
      }
    }
  }
  for (const r of t.reports) {
    if (r.status !== 'READY' || r.report_type !== 'MHL_COMPLIANCE') continue;
    const f = facts.get(r.scene_id)!;
    for (const rec of JSON.parse(r.json).records) {
      const sku = mhlSku.get(rec.mhl_record_id)!;
      const p = f.products.get(sku) ?? { facings: 0, must_have: null };
      p.must_have = Math.max(p.must_have ?? 0, rec.compliant ? 1 : 0);
      f.products.set(sku, p);
    }
  }
  const productOk = (f: OverviewFilters, scene: Row, sku: string, brandToo = true) =>
    (f.display === undefined || scene.display_id === f.display) &&
    (!brandToo || f.brand === undefined || skus.get(sku)!.brand_id === f.brand) &&
    (f.category === undefined || skus.get(sku)!.category_id === f.category);
  const review = (v: Row) => v.moderation ?? 'unreviewed';
  const visitProducts = (v: Row) => (scenesOf.get(v.id) ?? []).flatMap((s) => [...facts.get(s.id)!.products].map(([sku, p]) => ({ scene: s, sku, ...p })));
  const filtered = (f: OverviewFilters) =>
    t.visits.filter(
      (v) =>
        v.started_date !== null && v.started_date >= f.from && v.started_date < f.end &&
        (f.shop === undefined || v.shop === f.shop) && (f.agent === undefined || v.agent === f.agent) &&
        (f.review === undefined || review(v) === f.review) &&
        (f.display === undefined || (scenesOf.get(v.id) ?? []).some((s) => s.display_id === f.display)) &&
        ((f.brand === undefined && f.category === undefined) || visitProducts(v).some((p) => productOk(f, p.scene, p.sku))),
    );
  const kpi = (v: Row, cid: string) => t.kpi_values.find((k) => k.visit_id === v.id && k.kpi_id === cid)?.value ?? null;
  const perVisit = (f: OverviewFilters) =>
    filtered(f).map((v) => {
      const scenes = scenesOf.get(v.id) ?? [];
      const photos = scenes.reduce((n, s) => n + JSON.parse(s.images).length, 0);
      const retaken = scenes
        .filter((s) => s.display_id !== null && scenes.some((o) => o.display_id === s.display_id && (o.created_at > s.created_at || (o.created_at === s.created_at && o.id > s.id))))
        .reduce((n, s) => n + JSON.parse(s.images).length, 0);
      const unjoined = scenes.reduce((n, s) => n + (s.analysis ? (JSON.parse(s.analysis).bay?.photos ?? []).filter((p: Row) => p.joined === false).length : 0), 0);
      const flagged = scenes.reduce((n, s) => n + [...new Set(JSON.parse(s.images) as string[])].filter((u) => measures.has(u) && judgePixels(measures.get(u)!, T).length > 0).length, 0);
      const products = visitProducts(v);
      const found = new Set(products.filter((p) => p.must_have === 1).map((p) => p.sku));
      const missingSkus = new Set(products.filter((p) => p.must_have === 0 && !found.has(p.sku) && productOk(f, p.scene, p.sku)).map((p) => p.sku));
      return {
        v, osa: kpi(v, CIDS.osa), planogram: kpi(v, CIDS.planogram), facings: kpi(v, CIDS.facings), price: kpi(v, CIDS.price), photos, retaken, flagged, unjoined,
        unknown: scenes.reduce((n, s) => n + facts.get(s.id)!.unknown, 0), missing: missingSkus, review: review(v),
      };
    });
  return { facts, skus, scenesOf, visitProducts, productOk, filtered, perVisit };
}

function series(ref: ReturnType<typeof reference>, f: OverviewFilters, bucket: Bucket) {
  const groups = new Map<string, ReturnType<typeof ref.perVisit>>();
  for (const r of ref.perVisit(f)) {
    const k = periodOf(r.v.started_date.slice(0, 10), bucket);
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  const nn = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null);
  return [...groups].sort(([a], [b]) => a.localeCompare(b)).map(([period, rs]) => ({
    period, visits: rs.length, osa: mean(nn(rs.map((r) => r.osa))), planogram: mean(nn(rs.map((r) => r.planogram))), facings: mean(nn(rs.map((r) => r.facings))),
    price: mean(nn(rs.map((r) => r.price))),
  }));
}

function randomQuery(rnd: () => number, t: Data): OverviewQuery {
  const pick = <X,>(xs: X[]) => xs[Math.floor(rnd() * xs.length)];
  const q: OverviewQuery = { date_from: '2026-03-01', date_to: '2026-03-25' };
  if (rnd() < 0.5) {
    const a = 1 + Math.floor(rnd() * 20);
    q.date_from = `2026-03-${String(a).padStart(2, '0')}`;
    q.date_to = `2026-03-${String(Math.min(28, a + Math.floor(rnd() * 10))).padStart(2, '0')}`;
  }
  if (rnd() < 0.3) q.shop = pick(t.visits).shop;
  if (rnd() < 0.3) q.agent = pick(t.agents).id;
  if (rnd() < 0.3) q.display = pick(t.displays).id;
  if (rnd() < 0.25) q.brand = pick(t.brands).id;
  if (rnd() < 0.25) q.category = pick(t.categories).id;
  if (rnd() < 0.25) q.review = pick(['unreviewed', 'in_review', 'reviewed']);
  return q;
}

function suite(name: string, open: () => Promise<OpenDatabase>, cleanup: () => void | Promise<void>) {
  describe(`overview queries, ${name}`, () => {
    let database: OpenDatabase;
    let db: Kysely<Database>;
    const t = overviewData({ visits: 160, scenesPerVisit: 4, seed: 7 }) as unknown as Data;
    const ref = reference(t);

    beforeAll(async () => {
      database = await open();
      db = database.db;
      await seedOverview(db, t);
      // Seeded around the domain code: projected as the backfill after migration 0030 does.
      expect(await projectAll(db)).toBe(t.visits.length);
    }, 120_000);
    afterAll(async () => {
      await database?.close();
      await cleanup();
    });

    it('every figure equals the slow computation, for random filters', async () => {
      const rnd = prng(3);
      let nonEmpty = 0;
      for (let i = 0; i < 25; i++) {
        const q = i === 0 ? { date_from: '2026-03-01', date_to: '2026-03-31' } : randomQuery(rnd, t);
        const f = await readFilters(db, q);
        const rows = ref.perVisit(f);
        if (rows.length > 0) nonEmpty++;
        const label = JSON.stringify(q);

        for (const bucket of ['day', 'week', 'month'] as const) {
          const got = await kpiSeries(db, f, bucket);
          expectClose(got.series, series(ref, f, bucket), `${label} ${bucket}`);
          expect(got.totals.visits).toBe(rows.length);
        }

        // Stores, worst OSA first.
        const shops = new Map<string | null, typeof rows>();
        for (const r of rows) shops.set(r.v.shop, [...(shops.get(r.v.shop) ?? []), r]);
        const nn = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null);
        const expectedStores = [...shops].map(([shop, rs]) => ({
          shop, visits: rs.length, osa: mean(nn(rs.map((r) => r.osa))), planogram: mean(nn(rs.map((r) => r.planogram))),
          facings: mean(nn(rs.map((r) => r.facings))), price: mean(nn(rs.map((r) => r.price))), missing: rs.reduce((n, r) => n + r.missing.size, 0),
          flagged: rs.reduce((n, r) => n + r.flagged, 0), last_visit: rs.map((r) => r.v.started_date).sort().at(-1),
        }));
        const cmp = (a: number | null, b: number | null) => (a === null ? (b === null ? 0 : 1) : b === null ? -1 : a - b);
        expectedStores.sort((a, b) => cmp(a.osa, b.osa) || cmp(a.planogram, b.planogram) || String(a.shop).localeCompare(String(b.shop)));
        const gotStores = await stores(db, f, ALL);
        expect(gotStores.count, label).toBe(expectedStores.length);
        expectClose(gotStores.results.map(({ shop_name: _, ...r }) => r), expectedStores, label);

        // Missing must-haves by shop and product.
        const miss = new Map<string, { shop: string; sku: string; visits: Set<string>; last: string }>();
        for (const r of rows) {
          for (const sku of r.missing) {
            const k = `${r.v.shop}|${sku}`;
            const m = miss.get(k) ?? { shop: r.v.shop, sku, visits: new Set(), last: '' };
            m.visits.add(r.v.id);
            if (r.v.started_date > m.last) m.last = r.v.started_date;
            miss.set(k, m);
          }
        }
        const lastSeen = (shop: string, sku: string) =>
          t.visits
            .filter((v) => v.shop === shop && v.started_date !== null && v.started_date < f.end && ref.visitProducts(v).some((p) => p.sku === sku && (p.facings > 0 || p.must_have === 1)))
            .map((v) => v.started_date as string).sort().at(-1) ?? null;
        const expectedMissing = [...miss.values()]
          .map((m) => ({ shop: m.shop, sku: m.sku, visits: m.visits.size, last_missing: m.last, last_seen: lastSeen(m.shop, m.sku) }))
          .sort((a, b) => b.visits - a.visits || a.shop.localeCompare(b.shop) || a.sku.localeCompare(b.sku));
        const gotMissing = await missing(db, f, ALL);
        expect(gotMissing.count).toBe(expectedMissing.length);
        expect(gotMissing.results.map((r) => ({ shop: r.shop, sku: r.sku, visits: r.visits, last_missing: r.last_missing, last_seen: r.last_seen })), label).toEqual(expectedMissing);

        // Share of shelf by brand: the brand filter narrows the visits only.
        const brands = new Map<string | null, number>();
        let unknown = 0;
        for (const r of rows) {
          for (const p of ref.visitProducts(r.v)) {
            if (p.facings > 0 && ref.productOk(f, p.scene, p.sku, false)) brands.set(ref.skus.get(p.sku)!.brand_id, (brands.get(ref.skus.get(p.sku)!.brand_id) ?? 0) + p.facings);
          }
          for (const s of ref.scenesOf.get(r.v.id) ?? []) if (f.display === undefined || s.display_id === f.display) unknown += ref.facts.get(s.id)!.unknown;
        }
        const share = await shareByBrand(db, f);
        const total = [...brands.values()].reduce((a, b) => a + b, 0);
        expect(share.facings).toBe(total);
        expect(share.unknown_facings).toBe(unknown);
        expect(new Map(share.results.map((r) => [r.brand, r.facings]))).toEqual(brands);
        for (const r of share.results) expect(r.share).toBeCloseTo(r.facings / total, 10);

        // Auditors.
        const agents = new Map<string | null, { visits: number; photos: number; flagged: number; retaken: number }>();
        for (const r of rows) {
          const a = agents.get(r.v.agent) ?? { visits: 0, photos: 0, flagged: 0, retaken: 0 };
          a.visits++;
          a.photos += r.photos;
          a.flagged += r.flagged;
          a.retaken += r.retaken;
          agents.set(r.v.agent, a);
        }
        const gotAgents = await agentsOverview(db, f, ALL);
        expect(new Map(gotAgents.results.map(({ agent, agent_name: _, ...rest }) => [agent, rest])), label).toEqual(agents);
        const order = gotAgents.results.map((r) => r.flagged + r.retaken);
        expect(order).toEqual([...order].sort((a, b) => b - a));

        // The review queue: priority as documented, highest first.
        const priority = (r: (typeof rows)[number]) =>
          (r.review === 'unreviewed' ? 40 : r.review === 'in_review' ? 20 : 0) + Math.min(r.unknown, 20) +
          (r.osa !== null && r.osa < LOW_SCORE ? 20 : 0) + (r.planogram !== null && r.planogram < LOW_SCORE ? 20 : 0) +
          (r.price !== null && r.price < LOW_SCORE ? 20 : 0) + Math.min(r.flagged * 10, 30) +
          Math.min(r.unjoined * 10, 20);
        const expectedQueue = rows
          .map((r) => ({ visit: r.v.id, priority: priority(r), started: r.v.started_date }))
          .filter((r) => r.priority > 0)
          .sort((a, b) => b.priority - a.priority || b.started.localeCompare(a.started) || a.visit.localeCompare(b.visit));
        const queue = await reviewQueue(db, f, ALL);
        expect(queue.count).toBe(expectedQueue.length);
        expect(queue.results.map((r) => ({ visit: r.visit, priority: r.priority, started: r.started_date })), label).toEqual(expectedQueue);
        expect(queue.counts.unreviewed).toBe(expectedQueue.filter((q) => rows.find((r) => r.v.id === q.visit)!.review === 'unreviewed').length);
        expect(queue.counts.unjoined_photos).toBe(rows.filter((r) => r.unjoined > 0).length);
        const low = (x: number | null) => x !== null && x < LOW_SCORE;
        expect(queue.counts.low_score, label).toBe(rows.filter((r) => low(r.osa) || low(r.planogram) || low(r.price)).length);
        // Price compliance is in the data: the figures above compare it where visits have it.
        if (i === 0) expect(rows.filter((r) => r.price !== null).length).toBeGreaterThan(rows.length / 3);
        for (const q of queue.results) expect(q.reasons.includes('unjoined_photos'), label).toBe(rows.find((r) => r.v.id === q.visit)!.unjoined > 0);

        // The visits behind the figures: all of them, and those of each missing product.
        const behind = await visitsOf(db, f, { page: ALL });
        expect(behind.count).toBe(rows.length);
        expect(new Set(behind.results.map((r) => r.visit))).toEqual(new Set(rows.map((r) => r.v.id)));
        for (const m of expectedMissing.slice(0, 3)) {
          const of = await visitsOf(db, { ...f, shop: m.shop }, { page: ALL, sku: m.sku });
          expect(of.results.length).toBe(m.visits);
        }
      }
      expect(nonEmpty).toBeGreaterThan(15);
    }, 300_000);

    it('new photo thresholds judge every visit\'s photos again in the transaction that saves them', async () => {
      const flaggedUnder = (th: typeof T) => {
        const measures = new Map(t.photo_measures.map((m) => [m.upload_id, JSON.parse(m.measures) as PixelMeasures]));
        return new Map(t.visits.map((v) => [v.id, [...new Set((ref.scenesOf.get(v.id) ?? []).flatMap((s) => JSON.parse(s.images) as string[]))]
          .filter((u) => measures.has(u) && judgePixels(measures.get(u)!, th).length > 0).length]));
      };
      const stored = async () => new Map((await db.selectFrom('overview_visits').select(['visit_id', 'flagged']).execute()).map((r) => [r.visit_id, Number(r.flagged)]));
      expect(await stored()).toEqual(flaggedUnder(T));
      const stricter = { ...T, min_sharpness: 150 };
      await saveThresholds(db, { min_sharpness: 150 });
      const now = await stored();
      expect(now).toEqual(flaggedUnder(stricter));
      expect([...now.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan([...flaggedUnder(T).values()].reduce((a, b) => a + b, 0));
      await saveThresholds(db, { min_sharpness: T.min_sharpness });
      expect(await stored()).toEqual(flaggedUnder(T));
    });

    it('a visit deleted, or a report changed, is projected by projectVisits in the writing transaction', async () => {
      const scene = t.scenes.find((s) => t.reports.some((r) => r.scene_id === s.id && r.report_type === 'FACING_COUNT' && r.status === 'READY'))!;
      await write(db, async ({ trx }) => {
        await trx.updateTable('reports').set({ json: JSON.stringify([{ sku_id: null, count: 99 }]), updated_at: '2026-06-01T00:00:00.000Z' })
          .where('scene_id', '=', scene.id).where('report_type', '=', 'FACING_COUNT').execute();
        await projectVisits(trx, [scene.visit_id]);
      });
      const others = (ref.scenesOf.get(scene.visit_id) ?? []).filter((s) => s.id !== scene.id).reduce((n, s) => n + ref.facts.get(s.id)!.unknown, 0);
      const row = await db.selectFrom('overview_visits').selectAll().where('visit_id', '=', scene.visit_id).executeTakeFirstOrThrow();
      expect(row.unknown_facings).toBe(others + 99);
      const empty = t.visits.find((v) => !ref.scenesOf.has(v.id)) ?? null;
      const gone = empty?.id ?? 'visit-without-scenes';
      await write(db, async ({ trx }) => {
        if (!empty) await trx.insertInto('visits').values({ id: gone, name: null, shop: 'shop-0', agent: null, started_date: '2026-03-02T00:00:00.000Z', shop_name: null, moderation: null, is_new: 1, is_closed: 0, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' } as never).execute();
        await projectVisits(trx, [gone]);
      });
      expect(await db.selectFrom('overview_visits').select('visit_id').where('visit_id', '=', gone).execute()).toHaveLength(1);
      await write(db, async ({ trx }) => {
        await trx.deleteFrom('kpi_values').where('visit_id', '=', gone).execute();
        await trx.deleteFrom('visits').where('id', '=', gone).execute();
        await projectVisits(trx, [gone]);
      });
      for (const table of ['overview_visits', 'overview_visit_displays', 'overview_visit_products', 'overview_visit_categories', 'overview_visit_brands', 'overview_visit_shares', 'overview_photos'] as const) {
        expect(await db.selectFrom(table).select('visit_id').where('visit_id', '=', gone).execute()).toEqual([]);
      }
    });

    it('an SKU moved to another brand or category counts under the new one at once, for the visits already stored (API, import, sync pull)', async () => {
      const FACTS = ['overview_visit_products', 'overview_visit_brands', 'overview_visit_categories', 'overview_visit_shares'] as const;
      const snapshot = async () => {
        const out: Record<string, unknown[]> = {};
        for (const table of FACTS) {
          const rows = (await db.selectFrom(table).selectAll().execute()) as Row[];
          out[table] = rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).sort().map(([k, v]) => [k, typeof v === 'bigint' || typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v])))).sort();
        }
        return out;
      };
      const f = await readFilters(db, { date_from: '2026-03-01', date_to: '2026-03-31' });
      const facingsOf = async (brand: string) => (await shareByBrand(db, f)).results.find((r) => r.brand === brand)?.facings ?? 0;
      const moves: [string, (sku: Row, brand: string, category: string) => Promise<unknown>][] = [
        ['the Data API', (sku, brand, category) => write(db, (ctx) => updateRecord(ctx, skuResource, sku.id, { brand, category }))],
        ['an import', (sku, brand, category) => importMasterData(db, { skus: [{ id: sku.id, name: sku.name, brand, category }] })],
        ['a sync pull', (sku, brand, category) => applyPull(db, {
          cursor: `c-${sku.id}`, more: false,
          changes: [{ entity: 'sku', id: sku.id, op: 'upsert', row: { ...sku, brand_id: brand, category_id: category, updated_at: '2026-06-01T00:00:00.000Z' } }],
        } as never)],
      ];
      for (const [i, [how, move]] of moves.entries()) {
        // An SKU on the shelf of many visits, moved to a brand and a category it was not of.
        const sku = t.skus[i * 4 + 1];
        const stored = await db.selectFrom('skus').selectAll().where('id', '=', sku.id).executeTakeFirstOrThrow();
        const brand = t.brands.map((b) => b.id).find((b) => b !== stored.brand_id)!;
        const category = t.categories.map((c) => c.id).find((c) => c !== stored.category_id)!;
        const shelved = await db.selectFrom('overview_visit_products').select('visit_id').where('sku_id', '=', sku.id).where('display_id', '=', '*').where('facings', '>', 0).execute();
        expect(shelved.length, how).toBeGreaterThan(5);
        const movedFacings = Number((await db.selectFrom('overview_visit_products').select((e) => e.fn.sum<number>('facings').as('n')).where('sku_id', '=', sku.id).where('display_id', '=', '*').where('started_date', '>=', f.from).where('started_date', '<', f.end).executeTakeFirstOrThrow()).n);
        const before = await facingsOf(brand);
        await move(stored as Row, brand, category);
        expect((await db.selectFrom('skus').select('brand_id').where('id', '=', sku.id).executeTakeFirstOrThrow()).brand_id, how).toBe(brand);
        // The share of shelf counts its facings under the new brand, the category filter finds its visits.
        expect(await facingsOf(brand), how).toBe(before + movedFacings);
        const inCategory = await visitsOf(db, await readFilters(db, { date_from: '2026-03-01', date_to: '2026-03-31', category }), { page: ALL });
        for (const v of shelved.slice(0, 5)) if (t.visits.find((x) => x.id === v.visit_id)?.started_date) expect(inCategory.results.map((r) => r.visit), how).toContain(v.visit_id);
        // Every fact as a projection from scratch would make it.
        const after = await snapshot();
        await projectAll(db);
        expect(after, how).toEqual(await snapshot());
      }
    });
  });
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-overview-'));
suite('SQLite', () => openDatabase(dir), () => rmSync(dir, { recursive: true, force: true }));
const cluster = new PgCluster();
suite(
  'PostgreSQL',
  async () => {
    await cluster.start();
    return openDatabaseTarget({ kind: 'postgres', connectionString: cluster.url });
  },
  () => cluster.stop(),
);
