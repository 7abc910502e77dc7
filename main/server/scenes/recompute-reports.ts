// After a supervisor's correction (boxes: review.ts; price tags: price-review.ts) every report of the
// scene is built again from the corrected analysis, as a new report following the one it replaces.
import type { WriteContext } from '../storage/transaction.js';
import { newId } from '../storage/ids.js';
import { enqueueJob } from './jobs/queue.js';
import { insertReport, reportsOfScene } from './queries.js';

/** New reports of every type the scene has, following the ones they replace, and their job. */
export async function recomputeReports(ctx: WriteContext, sceneId: string, visitId: string, at: string): Promise<Record<string, string>> {
  const existing = await reportsOfScene(ctx.trx, sceneId);
  const latest = new Map<string, string>();
  for (const r of existing) latest.set(r.report_type, r.id);
  const out: Record<string, string> = {};
  for (const [report_type, previous] of latest) {
    const id = newId();
    await insertReport(ctx.trx, { id, scene_id: sceneId, visit_id: visitId, report_type, status: 'NOT_READY', json: null, error: null, previous_report: previous, created_at: at, updated_at: at });
    ctx.changed('report', id);
    out[report_type] = id;
  }
  if (Object.keys(out).length > 0) await enqueueJob(ctx, sceneId, Object.values(out));
  return out;
}

