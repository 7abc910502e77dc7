// Per-visit KPI values that recognition produces, written into the Data API's KPI values of the visit
// (category-less). The KPI records are created on first use, identified by their `cid`.
import { touchVisit } from '../domain/visits.js';
import { newId, now } from '../storage/ids.js';
import type { WriteContext } from '../storage/transaction.js';

export const RECOGNITION_KPIS = {
  osa: { cid: 'shelf-audit:osa', name: 'On-shelf availability (must-have list)', units: '%' },
  planogram: { cid: 'shelf-audit:planogram-compliance', name: 'Planogram compliance', units: '%' },
  facings: { cid: 'shelf-audit:total-facings', name: 'Total facings', units: 'facings' },
} as const;

export type RecognitionKpi = keyof typeof RECOGNITION_KPIS;

export async function setVisitKpi(ctx: WriteContext, visitId: string, kpi: RecognitionKpi, value: number): Promise<void> {
  const def = RECOGNITION_KPIS[kpi];
  const at = now();
  let row = await ctx.trx.selectFrom('kpis').select('id').where('cid', '=', def.cid).executeTakeFirst();
  if (!row) {
    // The cid is the id too: every laptop and the central name the same KPI record (sync/plugin.ts).
    row = { id: def.cid };
    await ctx.trx.insertInto('kpis').values({ id: row.id, cid: def.cid, name: def.name, units: def.units, created_at: at, updated_at: at }).execute();
    ctx.changed('kpi', row.id);
  }
  const existing = await ctx.trx
    .selectFrom('kpi_values')
    .select('id')
    .where('visit_id', '=', visitId)
    .where('kpi_id', '=', row.id)
    .where('category_id', 'is', null)
    .executeTakeFirst();
  const id = existing?.id ?? newId();
  if (existing) {
    await ctx.trx.updateTable('kpi_values').set({ value, updated_at: at }).where('id', '=', id).execute();
  } else {
    await ctx.trx.insertInto('kpi_values').values({ id, visit_id: visitId, kpi_id: row.id, category_id: null, value, created_at: at, updated_at: at }).execute();
  }
  ctx.changed('kpi_value', id);
  await touchVisit(ctx, visitId);
}
