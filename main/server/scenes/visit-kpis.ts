// Per-visit KPI values that recognition produces, written into the Data API's KPI values of the visit
// (category-less). The KPI records are created on first use, identified by their `cid`.
import { touchVisit } from '../domain/visits.js';
import { newId, now } from '../storage/ids.js';
import type { WriteContext } from '../storage/transaction.js';
import { insertKpi, insertKpiValue, kpiByCid, setKpiValue, visitKpiValue } from './queries.js';

export const RECOGNITION_KPIS = {
  osa: { cid: 'shelf-audit:osa', name: 'On-shelf availability (must-have list)', units: '%' },
  planogram: { cid: 'shelf-audit:planogram-compliance', name: 'Planogram compliance', units: '%' },
  facings: { cid: 'shelf-audit:total-facings', name: 'Total facings', units: 'facings' },
  // PRICE_COMPLIANCE: SKUs whose tags show the price list's price, of those the list prices.
  prices: { cid: 'shelf-audit:price-compliance', name: 'Price compliance', units: '%' },
} as const;

export type RecognitionKpi = keyof typeof RECOGNITION_KPIS;

export async function setVisitKpi(ctx: WriteContext, visitId: string, kpi: RecognitionKpi, value: number): Promise<void> {
  const def = RECOGNITION_KPIS[kpi];
  const at = now();
  let kpiId = await kpiByCid(ctx.trx, def.cid);
  if (kpiId === undefined) {
    // The cid is the id too: every laptop and the central name the same KPI record (sync/plugin.ts).
    kpiId = def.cid;
    await insertKpi(ctx.trx, { id: kpiId, cid: def.cid, name: def.name, units: def.units, created_at: at, updated_at: at });
    ctx.changed('kpi', kpiId);
  }
  const existing = await visitKpiValue(ctx.trx, visitId, kpiId);
  const id = existing ?? newId();
  if (existing !== undefined) await setKpiValue(ctx.trx, id, value, at);
  else await insertKpiValue(ctx.trx, { id, visit_id: visitId, kpi_id: kpiId, category_id: null, value, created_at: at, updated_at: at });
  ctx.changed('kpi_value', id);
  await touchVisit(ctx, visitId);
}
