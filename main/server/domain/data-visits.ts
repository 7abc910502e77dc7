// Data API visits: the list with its filters (is_new, cid, agent, datetime_gte), the detail with KPI
// values and the scenes recognition adds, and the kpivalue action.
import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { DataVisit, DataVisitDetail, DataVisitScene, KpiValueBody, KpiValueResult } from '../schemas/data-api.js';
import { newId, now } from '../storage/ids.js';
import type { Database } from '../storage/schema.js';
import type { WriteContext } from '../storage/transaction.js';
import { NotFoundError, ValidationError, messages } from './errors.js';
import type { ListResult, Page } from './resource.js';
import { touchVisit, visitIdOf } from './visits.js';
import { projectVisits } from './overview/projection.js';

type Row = Record<string, any>;

export interface DataVisitFilters {
  /** The real service lists only new visits unless told otherwise. */
  is_new?: boolean;
  cid?: string;
  agent?: string;
  /** ISO date-time: visits whose start (or, lacking one, creation) is at or after it. */
  datetime_gte?: string;
}

/** What recognition contributes to a visit's detail (the caller passes it: the domain knows no recognition). */
export type ScenesLoader = (db: Kysely<Database>, visitId: string) => Promise<Static<typeof DataVisitScene>[]>;

function listItem(r: Row): Static<typeof DataVisit> {
  return { id: r.data_id, cid: r.id, name: r.name ?? r.shop_name ?? '', created_at: r.created_at, updated_at: r.updated_at, is_new: r.is_new === 1 };
}

export async function listDataVisits(db: Kysely<Database>, page: Page, f: DataVisitFilters): Promise<ListResult<Static<typeof DataVisit>>> {
  let q = db.selectFrom('visits');
  q = q.where('is_new', '=', f.is_new === false ? 0 : 1);
  if (f.cid !== undefined) q = q.where('id', '=', f.cid);
  if (f.agent !== undefined) q = q.where('agent', '=', f.agent);
  if (f.datetime_gte !== undefined) {
    const from = new Date(f.datetime_gte).toISOString();
    q = q.where((eb) => eb(eb.fn.coalesce('started_date', 'created_at'), '>=', from));
  }
  const [{ n }] = await q.select((eb) => eb.fn.countAll().as('n')).execute();
  const rows = await q.selectAll().orderBy('data_id').limit(page.limit).offset(page.offset).execute();
  return { count: Number(n), results: rows.map(listItem) };
}

export async function getDataVisit(db: Kysely<Database>, dataId: number, scenesOf: ScenesLoader): Promise<Static<typeof DataVisitDetail>> {
  const r = await db.selectFrom('visits').selectAll().where('data_id', '=', dataId).executeTakeFirst();
  if (!r) throw new NotFoundError('visit');
  const kpiValues = await db
    .selectFrom('kpi_values')
    .innerJoin('kpis', 'kpis.id', 'kpi_values.kpi_id')
    .leftJoin('categories', 'categories.id', 'kpi_values.category_id')
    .select(['kpis.data_id as kpi', 'categories.data_id as category', 'kpi_values.value', 'kpi_values.updated_at'])
    .where('kpi_values.visit_id', '=', r.id)
    .orderBy('kpi_values.data_id')
    .execute();
  return {
    ...listItem(r),
    agent_id: r.agent,
    store_id: r.shop,
    started_date: r.started_date,
    is_closed: r.is_closed === 1,
    closed_at: r.closed_at,
    kpi_values: kpiValues,
    scenes: await scenesOf(db, r.id),
  };
}

export type KpiValueInput = Static<typeof KpiValueBody>;

/** POST /visits/{id}/kpivalue/: sets (replaces) the visit's value of a KPI for a category. */
export async function setKpiValue(ctx: WriteContext, visitDataId: number, input: KpiValueInput): Promise<Static<typeof KpiValueResult>> {
  const visitId = await visitIdOf(ctx.trx, visitDataId);
  const kpi = await ctx.trx.selectFrom('kpis').select('id').where('data_id', '=', input.kpi).executeTakeFirst();
  const category = await ctx.trx.selectFrom('categories').select('id').where('data_id', '=', input.category).executeTakeFirst();
  const errors: Record<string, string[]> = {};
  if (!kpi) errors.kpi = [messages.doesNotExist(input.kpi)];
  if (!category) errors.category = [messages.doesNotExist(input.category)];
  if (!kpi || !category) throw new ValidationError(errors);
  const at = now();
  const existing = await ctx.trx
    .selectFrom('kpi_values')
    .select('id')
    .where('visit_id', '=', visitId)
    .where('kpi_id', '=', kpi.id)
    .where('category_id', '=', category.id)
    .executeTakeFirst();
  const id = existing?.id ?? newId();
  if (existing) {
    await ctx.trx.updateTable('kpi_values').set({ value: input.value, updated_at: at }).where('id', '=', id).execute();
  } else {
    await ctx.trx
      .insertInto('kpi_values')
      .values({ id, visit_id: visitId, kpi_id: kpi.id, category_id: category.id, value: input.value, created_at: at, updated_at: at })
      .execute();
  }
  ctx.changed('kpi_value', id);
  await touchVisit(ctx, visitId);
  await projectVisits(ctx.trx, [visitId]);
  return { visit: visitDataId, kpi: input.kpi, category: input.category, value: input.value };
}
