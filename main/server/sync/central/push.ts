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
import { syncEntity, type SyncEntity } from '../registry.js';

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
  const t = trx as unknown as Kysely<any>;
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
    if (body.last > last) {
      for (const change of body.changes) {
        if (change.n <= last) continue;
        const def = syncEntity(change.entity)!;
        // A savepoint per change: a refused one rolls back alone (PostgreSQL would otherwise abort
        // the whole transaction at the first error).
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
        } else {
          await trx
            .insertInto('sync_rejections')
            .values({ id: `${device.id}:${change.n}`, device_id: device.id, change_number: change.n, entity: def.entity, record_id: change.id, reason: outcome.reason, created_at: at })
            .execute();
        }
      }
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
