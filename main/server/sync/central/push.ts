// The central applies a device's push: in ONE transaction, every change numbered above the device's
// last applied number, then that number. A retried push (its answer was lost) finds the number already
// there and changes nothing, so each change applies once. A change that may never apply (the id is
// another device's, a reference is broken) becomes a rejection, kept here and answered to the device,
// and the rest of the push goes on.
import { sql, type Kysely } from 'kysely';
import { ValidationError } from '../../domain/errors.js';
import type { PushRequestBody, PushResponseBody } from '../../schemas/sync.js';
import { isPostgres } from '../../storage/dialect.js';
import { now } from '../../storage/ids.js';
import type { Database } from '../../storage/schema.js';
import { write, type Trx } from '../../storage/transaction.js';
import { syncColumns, type Columns } from '../columns.js';
import { syncEntity, type SyncEntity, type SyncTable } from '../../storage/sync-registry.js';
import { syncRows } from '../rows.js';
import { learnFromCorrection } from '../../scenes/learn.js';
import { projectVisits, visitsOfChanges } from '../../domain/overview/projection.js';

export interface PushingDevice {
  id: string;
  role: 'auditor' | 'supervisor';
}

type Change = PushRequestBody['changes'][number];

/** Refuses the whole push (400, nothing applied) when it names what no laptop of ours would send. */
function checkShape(changes: Change[], columns: Columns): void {
  const errors: string[] = [];
  changes.forEach((c, i) => {
    const def = syncEntity(c.entity);
    if (!def || def.owner !== 'device') return void errors.push(`changes[${i}]: "${c.entity}" is not an entity a device may push.`);
    if (c.op === 'upsert') {
      if (!c.row) return void errors.push(`changes[${i}]: an upsert needs a row.`);
      if (c.row.id !== c.id) errors.push(`changes[${i}]: row.id must equal id.`);
      const known = columns.get(def.table)!;
      for (const [k, v] of Object.entries(c.row)) {
        if (!known.has(k)) errors.push(`changes[${i}]: unknown column "${k}".`);
        else if (v !== null && typeof v !== 'string' && typeof v !== 'number') errors.push(`changes[${i}]: "${k}" must be a string, a number or null.`);
      }
    }
  });
  if (errors.length > 0) throw new ValidationError({ changes: errors.slice(0, 20) });
}

type Outcome = { applied: true } | { applied: false; reason: string };

async function applyOne(trx: Trx, device: PushingDevice, def: SyncEntity, change: Change): Promise<Outcome> {
  const t = syncRows(trx);
  const owner = await trx.selectFrom('sync_owners').select('device_id').where('entity', '=', def.entity).where('record_id', '=', change.id).executeTakeFirst();
  const exists = async () => (await t.selectFrom(def.table).select('id').where('id', '=', change.id).executeTakeFirst()) !== undefined;
  if (owner && owner.device_id !== device.id) {
    const columns = def.supervisorColumns;
    if (device.role !== 'supervisor' || !columns || change.op !== 'upsert') {
      return { applied: false, reason: `${def.entity} ${change.id} belongs to another device.` };
    }
    const set = Object.fromEntries(columns.filter((c) => c in change.row!).map((c) => [c, change.row![c]]));
    if (Object.keys(set).length > 0) await t.updateTable(def.table).set(set).where('id', '=', change.id).execute();
    return { applied: true };
  }
  if (!owner) {
    if (await exists()) return { applied: false, reason: `${def.entity} ${change.id} already exists on the central and belongs to no device.` };
    if (change.op === 'delete') return { applied: true };
    await trx.insertInto('sync_owners').values({ entity: def.entity, record_id: change.id, device_id: device.id }).execute();
  }
  if (change.op === 'delete') {
    await t.deleteFrom(def.table).where('id', '=', change.id).execute();
    return { applied: true };
  }
  const { id: _id, ...rest } = change.row!;
  const insert = t.insertInto(def.table).values(change.row!);
  await (Object.keys(rest).length > 0 ? insert.onConflict((oc) => oc.column('id').doUpdateSet(rest)) : insert.onConflict((oc) => oc.column('id').doNothing())).execute();
  return { applied: true };
}

/** A short reason for a database refusal (a foreign key, a NOT NULL, a type) without internals. */
function refusal(def: SyncEntity, change: Change, error: unknown): string {
  const text = String((error as Error)?.message ?? error);
  if (/foreign key/i.test(text)) return `${def.entity} ${change.id} refers to a record the central does not have (broken reference).`;
  return `${def.entity} ${change.id} was refused by the central's database: ${text.slice(0, 200)}`;
}

/** Each change's owner before this push: one query per entity instead of one per change. */
async function ownersOf(trx: Trx, changes: Change[]): Promise<Map<string, string>> {
  const owners = new Map<string, string>();
  const byEntity = new Map<string, string[]>();
  for (const c of changes) {
    const ids = byEntity.get(c.entity);
    if (ids) ids.push(c.id);
    else byEntity.set(c.entity, [c.id]);
  }
  for (const [entity, ids] of byEntity) {
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await trx.selectFrom('sync_owners').select(['record_id', 'device_id']).where('entity', '=', entity).where('record_id', 'in', ids.slice(i, i + 500)).execute();
      for (const r of rows) owners.set(`${entity}\u0000${r.record_id}`, r.device_id);
    }
  }
  return owners;
}

/** The ids of `table` that already exist, of those given. */
async function existing(trx: Trx, table: SyncTable, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await syncRows(trx).selectFrom(table).select('id').where('id', 'in', ids.slice(i, i + 500)).execute();
    for (const r of rows) found.add(r.id as string);
  }
  return found;
}

/**
 * A run of consecutive upserts of one entity with the same columns, each the pushing device's own
 * record or a new one: written with one multi-row statement. `fresh` are the new ones (owner to add).
 */
interface Run {
  def: SyncEntity;
  columns: string;
  changes: Change[];
  fresh: Change[];
}

/**
 * The push split into runs written in bulk, in order, and single changes that need the careful path
 * (another device's record, a delete, a record that exists with no owner). Decided from two set
 * queries; the bulk write re-proves it (a constraint it breaks sends the run to the careful path).
 */
async function plan(trx: Trx, device: PushingDevice, changes: Change[]): Promise<Array<Run | Change>> {
  const owners = await ownersOf(trx, changes);
  const unowned = new Map<string, string[]>();
  for (const c of changes) {
    if (c.op !== 'upsert' || owners.has(`${c.entity}\u0000${c.id}`)) continue;
    const ids = unowned.get(c.entity);
    if (ids) ids.push(c.id);
    else unowned.set(c.entity, [c.id]);
  }
  const exists = new Map<string, Set<string>>();
  for (const [entity, ids] of unowned) exists.set(entity, await existing(trx, syncEntity(entity)!.table, ids));
  const steps: Array<Run | Change> = [];
  for (const c of changes) {
    const owner = owners.get(`${c.entity}\u0000${c.id}`);
    const fresh = owner === undefined && !exists.get(c.entity)?.has(c.id);
    if (c.op !== 'upsert' || !(owner === device.id || fresh)) {
      steps.push(c);
      continue;
    }
    const columns = Object.keys(c.row!).sort().join(',');
    const last = steps.at(-1);
    const run = last && 'changes' in last && last.def.entity === c.entity && last.columns === columns ? last : undefined;
    if (run) {
      run.changes.push(c);
      if (fresh) run.fresh.push(c);
    } else steps.push({ def: syncEntity(c.entity)!, columns, changes: [c], fresh: fresh ? [c] : [] });
  }
  return steps;
}

/** A run in bulk: the new records' owners, then every row in multi-row upserts. */
async function applyRun(trx: Trx, device: PushingDevice, run: Run): Promise<void> {
  const t = syncRows(trx);
  for (let i = 0; i < run.fresh.length; i += 500) {
    await trx
      .insertInto('sync_owners')
      .values(run.fresh.slice(i, i + 500).map((c) => ({ entity: run.def.entity, record_id: c.id, device_id: device.id })))
      .execute();
  }
  const columns = run.columns.split(',');
  const rest = columns.filter((c) => c !== 'id');
  // Under both databases' bound-parameter limits.
  const size = Math.max(1, Math.min(500, Math.floor(20_000 / columns.length)));
  for (let i = 0; i < run.changes.length; i += size) {
    const insert = t.insertInto(run.def.table).values(run.changes.slice(i, i + size).map((c) => c.row!));
    await (rest.length > 0
      ? insert.onConflict((oc) => oc.column('id').doUpdateSet(Object.fromEntries(rest.map((c) => [c, sql.ref(`excluded.${c}`)]))))
      : insert.onConflict((oc) => oc.column('id').doNothing())
    ).execute();
  }
}

export async function applyPush(db: Kysely<Database>, device: PushingDevice, body: PushRequestBody): Promise<PushResponseBody> {
  checkShape(body.changes, await syncColumns(db));
  const pg = isPostgres(db);
  return write(db, async (ctx) => {
    const trx = ctx.trx;
    // One push per device at a time, across every central process: the row lock orders them.
    let q = trx.selectFrom('devices').select('last_change').where('id', '=', device.id);
    if (pg) q = q.forUpdate();
    const last = Number((await q.executeTakeFirstOrThrow()).last_change);
    let applied = 0;
    const at = now();
    // Saved corrections that arrived: the central learns their references (master data) from them.
    const corrections: string[] = [];
    /** One change on its own, in a savepoint: a refused one rolls back alone. */
    const careful = async (change: Change) => {
      const def = syncEntity(change.entity)!;
      // (PostgreSQL would otherwise abort the whole transaction at the first error.)
      await sql`savepoint sync_change`.execute(trx);
      let outcome: Outcome;
      try {
        outcome = await applyOne(trx, device, def, change);
      } catch (error) {
        await sql`rollback to savepoint sync_change`.execute(trx);
        outcome = { applied: false, reason: refusal(def, change, error) };
      }
      await sql`release savepoint sync_change`.execute(trx);
      if (outcome.applied) {
        applied += 1;
        ctx.changed(def.entity, change.id, change.op, device.id);
        if (def.entity === 'annotation_correction' && change.op === 'upsert') corrections.push(change.id);
      } else {
        await trx
          .insertInto('sync_rejections')
          .values({ id: `${device.id}:${change.n}`, device_id: device.id, change_number: change.n, entity: def.entity, record_id: change.id, reason: outcome.reason, created_at: at })
          .execute();
      }
    };
    // The overview's facts of the visits this push touches, projected in the same transaction.
    const fresh = body.last > last ? body.changes.filter((c) => c.n > last) : [];
    const visits = new Set(await visitsOfChanges(trx, fresh.filter((c) => c.op === 'delete')));
    if (body.last > last) {
      for (const step of await plan(trx, device, body.changes.filter((c) => c.n > last))) {
        if (!('changes' in step)) {
          await careful(step);
          continue;
        }
        // The common case, a device's own new and changed records, in bulk; should any row break a
        // constraint, the run is undone and each of its changes goes the careful way.
        await sql`savepoint sync_run`.execute(trx);
        try {
          await applyRun(trx, device, step);
        } catch {
          await sql`rollback to savepoint sync_run`.execute(trx);
          await sql`release savepoint sync_run`.execute(trx);
          for (const change of step.changes) await careful(change);
          continue;
        }
        await sql`release savepoint sync_run`.execute(trx);
        applied += step.changes.length;
        for (const change of step.changes) {
          ctx.changed(step.def.entity, change.id, change.op, device.id);
          if (step.def.entity === 'annotation_correction' && change.op === 'upsert') corrections.push(change.id);
        }
      }
    }
    for (const v of await visitsOfChanges(trx, fresh.filter((c) => c.op === 'upsert'))) visits.add(v);
    await projectVisits(trx, visits);
    for (const id of corrections) {
      const row = await trx.selectFrom('annotation_corrections').select(['id', 'scene_id', 'image_id', 'before', 'after']).where('id', '=', id).executeTakeFirst();
      if (row) await learnFromCorrection(ctx, row);
    }
    await trx.updateTable('devices').set({ last_change: Math.max(last, body.last), last_seen_at: at }).where('id', '=', device.id).execute();
    // Rejections of the changes in this push, also when it is a replay whose first answer was lost.
    const numbers = body.changes.map((c) => c.n);
    const rejections =
      numbers.length === 0
        ? []
        : await trx.selectFrom('sync_rejections').selectAll().where('device_id', '=', device.id).where('change_number', 'in', numbers).orderBy('change_number').execute();
    return {
      last_change: Math.max(last, body.last),
      applied,
      rejections: rejections.map((r) => ({ change_number: Number(r.change_number), entity: r.entity, record_id: r.record_id, reason: r.reason, created_date: r.created_at })),
    };
  });
}
