// Visits: one table behind both APIs. v1.5 creates and updates them; the Data API reads them by their
// integer data_id, shows the v1.5 id as `cid`, and tracks `is_new`: any update sets it again, `ack`
// clears it. Recognition (POST /recognize) creates and touches visits through these functions too.
import type { Kysely } from 'kysely';
import { now } from '../storage/ids.js';
import type { Database } from '../storage/schema.js';
import type { WriteContext } from '../storage/transaction.js';
import { NotFoundError } from './errors.js';
import { createRecord, updateRecord, type ResourceDef } from './resource.js';
import { projectVisits } from './overview/projection.js';

type Row = Record<string, unknown>;

export const visits: ResourceDef = {
  table: 'visits',
  entity: 'visit',
  label: 'visit',
  fields: {
    name: { column: 'name' },
    shop: { column: 'shop' },
    agent: { column: 'agent' },
    started_date: { column: 'started_date', kind: 'datetime' },
    task: { column: 'task' },
    latitude: { column: 'latitude' },
    longitude: { column: 'longitude' },
    shop_name: { column: 'shop_name' },
    shop_area: { column: 'shop_area' },
    gps_shop: { column: 'gps_shop', kind: 'json' },
    images: { column: 'images', kind: 'json' },
    current_agent_name: { column: 'current_agent_name' },
    current_agent_route: { column: 'current_agent_route' },
    moderation: { column: 'moderation' },
    results: { column: 'results', kind: 'json' },
    helpdesk: { column: 'helpdesk' },
    // The Data API's flag, shown so the visits list marks new visits without a second request.
    is_new: { column: 'is_new', kind: 'bool', readOnly: true },
  },
  defaults: { is_new: 1, is_closed: 0 },
  // Its shop, agent and start are the overview's filters, read from the projection; a deleted
  // visit's facts go with it.
  afterWrite: projectVisits,
  list: {
    filters: {
      agent: { field: 'agent' },
      shop: { field: 'shop' },
      task: { field: 'task' },
      day: { field: 'started_date', match: 'day' },
      started_date__gte: { field: 'started_date', match: 'from' },
      started_date__lt: { field: 'started_date', match: 'before' },
      is_new: { column: 'is_new', kind: 'bool' },
    },
    search: ['name', 'shop_name', 'shop', 'agent', 'current_agent_name', 'id'],
    ordering: ['id', 'name', 'started_date', 'shop', 'agent', 'shop_name'],
  },
};

/** Creates a visit (v1.5 fields; `id` optional). New visits are `is_new`. */
export async function createVisit(ctx: WriteContext, input: Row): Promise<Row> {
  return createRecord(ctx, visits, input);
}

/** Updates a visit's fields and marks it new again for Data API readers. */
export async function updateVisit(ctx: WriteContext, id: string, input: Row): Promise<Row> {
  const record = await updateRecord(ctx, visits, id, input);
  await ctx.trx.updateTable('visits').set({ is_new: 1 }).where('id', '=', record.id as string).execute();
  // The answer shows the flag as it now is.
  return { ...record, is_new: true };
}

/** Records that something inside the visit changed (a scene, a KPI value): is_new again. */
export async function touchVisit(ctx: WriteContext, id: string): Promise<void> {
  const result = await ctx.trx.updateTable('visits').set({ is_new: 1, updated_at: now() }).where('id', '=', id).executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new NotFoundError('visit');
  ctx.changed(visits.entity, id);
}

/** A visit's review state, kept in the interface's `moderation` field. */
export type Moderation = 'unreviewed' | 'in_review' | 'reviewed';

/**
 * Sets the review state that recognition and review compute from the visit's scenes (recognition/
 * review.ts `refreshModeration`); a change of state is an update like any other: is_new again.
 */
export async function setVisitModeration(ctx: WriteContext, id: string, state: Moderation): Promise<void> {
  const result = await ctx.trx.updateTable('visits').set({ moderation: state, is_new: 1, updated_at: now() }).where('id', '=', id).executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new NotFoundError('visit');
  ctx.changed(visits.entity, id);
}

/** Data API `ack`: the client has the visit; it leaves the is_new list until its next update. */
export async function ackVisit(ctx: WriteContext, dataId: number): Promise<void> {
  const row = await ctx.trx.updateTable('visits').set({ is_new: 0 }).where('data_id', '=', dataId).returning('id').executeTakeFirst();
  if (!row) throw new NotFoundError('visit');
  // An acknowledgement is a change like any other: it syncs (to the central, and on to the visit's owner).
  ctx.changed(visits.entity, row.id);
}

export async function visitIdOf(db: Kysely<Database>, dataId: number): Promise<string> {
  const row = await db.selectFrom('visits').select('id').where('data_id', '=', dataId).executeTakeFirst();
  if (!row) throw new NotFoundError('visit');
  return row.id;
}
