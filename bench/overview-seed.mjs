// Random visits for the overview (domain/overview/): shops, agents, displays with must-have lists,
// SKUs of several brands and categories, visits with scenes, each scene's FACING_COUNT and
// MHL_COMPLIANCE reports, the visits' KPI values and the photos' pixel measures. Deterministic for a
// seed. Used by test/api/overview-queries.test.ts (small, with a slow reference computation) and by
// bench/overview.bench.mjs (10,000 visits of 10 scenes). Rows go straight into the tables as the
// server would have written them.

import { seededRandom } from '../scripts/seeded-random.mjs';

/** A small, seeded PRNG (mulberry32): scripts/seeded-random.mjs, under the name the tests use. */
export { seededRandom as prng };

const CIDS = { osa: 'shelf-audit:osa', planogram: 'shelf-audit:planogram-compliance', facings: 'shelf-audit:total-facings' };
/** Price compliance (scenes/visit-kpis.ts), drawn from a PRNG of its own so the other rows stay what they were for a seed. */
const PRICE_CID = 'shelf-audit:price-compliance';
const iso = (ms) => new Date(ms).toISOString();

/**
 * Generates the rows. Options: visits, scenesPerVisit (at most, at least 1; exactly with exactScenes), shops, agents, skus,
 * displays, days (visits spread over that many days from `start`), seed.
 */
export function overviewData({ visits = 50, scenesPerVisit = 4, exactScenes = false, shops = 6, agents = 4, skus = 30, displays = 3, days = 20, start = '2026-03-01', seed = 1 } = {}) {
  const rnd = seededRandom(seed);
  const priceRnd = seededRandom(seed + 7919);
  const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
  const at = '2026-01-01T00:00:00.000Z';
  const stamp = { created_at: at, updated_at: at };
  const t = {
    brands: [], categories: [], skus: [], displays: [], mhls: [], mhl_records: [], agents: [], kpis: [],
    visits: [], scenes: [], reports: [], kpi_values: [], photo_measures: [],
  };
  for (let i = 0; i < 4; i++) t.brands.push({ id: `brand-${i}`, name: `Brand ${i}`, ...stamp });
  for (let i = 0; i < 3; i++) t.categories.push({ id: `cat-${i}`, name: `Category ${i}`, ...stamp });
  for (let i = 0; i < skus; i++) {
    t.skus.push({ id: `sku-${i}`, name: `Product ${i}`, brand_id: i % 7 === 6 ? null : `brand-${i % 4}`, category_id: `cat-${i % 3}`, ...stamp });
  }
  for (let i = 0; i < displays; i++) {
    t.displays.push({ id: `display-${i}`, name: `Display ${i}`, planogram_id: null, mhl_id: null, ...stamp });
    t.mhls.push({ id: `mhl-${i}`, name: `Must-haves ${i}`, display_id: `display-${i}`, ...stamp });
    for (let j = 0; j < 5; j++) t.mhl_records.push({ id: `mhl-${i}-${j}`, name: null, mhl_id: `mhl-${i}`, sku_id: `sku-${(i * 5 + j * 3) % skus}`, ...stamp });
  }
  for (let i = 0; i < agents; i++) t.agents.push({ id: `agent-${i}`, name: i === 0 ? null : `Agent ${i}`, ...stamp });
  for (const [k, cid] of Object.entries({ ...CIDS, price: PRICE_CID })) t.kpis.push({ id: cid, cid, name: k, units: '%', ...stamp });
  const startMs = Date.parse(`${start}T00:00:00Z`);
  const moderations = [null, 'unreviewed', 'in_review', 'reviewed', 'reviewed'];
  let upload = 0;
  let sceneNo = 0;
  for (let v = 0; v < visits; v++) {
    const id = `visit-${String(v).padStart(6, '0')}`;
    const shop = `shop-${Math.floor(rnd() * shops)}`;
    const started = iso(startMs + Math.floor(rnd() * days * 86_400_000));
    const agent = rnd() < 0.05 ? null : pick(t.agents).id;
    t.visits.push({
      id, name: `Visit ${v}`, shop, agent, started_date: rnd() < 0.02 ? null : started, shop_name: `Shop ${shop.slice(5)}`,
      moderation: pick(moderations), is_new: 1, is_closed: 0, ...stamp,
    });
    const n = exactScenes ? scenesPerVisit : 1 + Math.floor(rnd() * scenesPerVisit);
    for (let s = 0; s < n; s++) {
      const sid = `scene-${String(sceneNo++).padStart(7, '0')}`;
      const display = rnd() < 0.1 ? null : pick(t.displays).id;
      const images = [];
      for (let p = 0, np = 1 + Math.floor(rnd() * 3); p < np; p++) {
        const up = `upload-${upload++}`;
        images.push(up);
        if (rnd() < 0.8) {
          t.photo_measures.push({
            upload_id: up,
            created_at: at,
            measures: JSON.stringify({
              width: rnd() < 0.05 ? 400 : 2000, height: 1500, sharpness: 20 + rnd() * 200, brightness: 60 + rnd() * 120,
              clipped: rnd() * 0.1, glare: rnd() * 0.012, tilt: (rnd() - 0.5) * 9, convergence: rnd() * 6, hash: '0',
            }),
          });
        }
      }
      const sceneAt = iso(Date.parse(at) + sceneNo * 1000);
      // Now and then a bay whose second photo could not be joined (recognition/bay/register.ts).
      const analysis = images.length > 1 && sceneNo % 9 === 0
        ? JSON.stringify({ images: [], bay: { width: 4000, height: 1500, ms: 1, photos: images.map((image, i) => ({ image, joined: i !== 1, transform: null, joined_to: null, overlap: null, reason: i === 1 ? 'no_overlap' : null, message: null })) } })
        : null;
      t.scenes.push({
        id: sid, request_id: `req-${sid}`, visit_id: id, display_id: display, images: JSON.stringify(images), options: '{}',
        webhook: null, agent_id: agent, analysis, created_at: sceneAt, updated_at: sceneAt,
      });
      // Facings: some products, some unknown.
      const facing = new Map();
      for (let k = 0, nk = Math.floor(rnd() * 6); k < nk; k++) {
        const sku = pick(t.skus).id;
        facing.set(sku, (facing.get(sku) ?? 0) + 1 + Math.floor(rnd() * 4));
      }
      const items = [...facing].map(([sku_id, count]) => ({ sku_id, count }));
      if (rnd() < 0.5) items.push({ sku_id: null, count: 1 + Math.floor(rnd() * 5) });
      const status = rnd() < 0.05 ? 'NOT_READY' : 'READY';
      t.reports.push({
        id: `rep-f-${sid}`, scene_id: sid, visit_id: id, report_type: 'FACING_COUNT', status,
        json: status === 'READY' ? JSON.stringify(items) : null, error: null, previous_report: null, created_at: sceneAt, updated_at: sceneAt,
      });
      if (display !== null) {
        const records = t.mhl_records
          .filter((r) => r.mhl_id === `mhl-${display.slice(8)}`)
          // About one must-have in six missing: an on-shelf availability near 85%, as in stores.
          .map((r) => ({ mhl_record_id: r.id, compliant: facing.has(r.sku_id) || rnd() < 0.8, found_sku_id: null }));
        t.reports.push({
          id: `rep-m-${sid}`, scene_id: sid, visit_id: id, report_type: 'MHL_COMPLIANCE', status: 'READY',
          json: JSON.stringify({ musthavelist: `mhl-${display.slice(8)}`, compliance: 0, records }), error: null, previous_report: null,
          created_at: sceneAt, updated_at: sceneAt,
        });
      }
    }
    let kv = 0;
    for (const [k, cid] of Object.entries(CIDS)) {
      if (rnd() < 0.15) continue;
      const value = k === 'facings' ? Math.floor(rnd() * 60) : Math.round(rnd() * 10_000) / 100;
      t.kpi_values.push({ id: `kv-${id}-${kv++}`, visit_id: id, kpi_id: cid, category_id: null, value, ...stamp });
    }
    // Four visits in ten without a price list behind them; the others a compliance from 50 to 100%.
    if (priceRnd() < 0.6) t.kpi_values.push({ id: `kv-${id}-price`, visit_id: id, kpi_id: PRICE_CID, category_id: null, value: Math.round((50 + priceRnd() * 50) * 100) / 100, ...stamp });
  }
  return t;
}

/**
 * Inserts the rows, parents first, in chunks (SQLite binds at most 32766 values per statement), then
 * marks the overview's facts to be projected (as for visits stored before migration 0030): the
 * server's start, or its first overview read, projects them (domain/overview/projection.ts).
 */
export async function seedOverview(db, t) {
  const order = ['brands', 'categories', 'skus', 'displays', 'mhls', 'mhl_records', 'agents', 'kpis', 'visits', 'scenes', 'reports', 'kpi_values', 'photo_measures'];
  for (const table of order) {
    const rows = t[table];
    for (let i = 0; i < rows.length; i += 500) {
      await db.insertInto(table).values(rows.slice(i, i + 500)).execute();
    }
  }
  await db.deleteFrom('overview_state').where('name', '=', 'backfill').execute();
  await db.insertInto('overview_state').values({ name: 'backfill', value: '' }).execute();
}
