// The laptop's side of sync, as plain functions over its database: settings and cursors, what to
// push next (from the outbox), what the central answered (rejections), and applying a pull.
import { sql, type Kysely } from 'kysely';
import type { PullResponseBody, PushRequestBody, PushResponseBody } from '../schemas/sync.js';
import { isPostgres } from '../storage/dialect.js';
import { now } from '../storage/ids.js';
import { preparedQuery } from '../storage/prepared-query.js';
import type { Database } from '../storage/schema.js';
import { write } from '../storage/transaction.js';
import { syncColumns, wireRow } from './columns.js';
import { PUSHED_ENTITIES, syncEntity } from '../storage/sync-registry.js';
import { syncRows } from './rows.js';
import { projectVisits, reclassifySkus, visitsOfChanges } from '../domain/overview/projection.js';

export type SettingName = 'central_url' | 'device_key' | 'pushed_seq' | 'pull_cursor' | 'last_success' | 'device_role';

// Every write to master data reads it (sync/plugin.ts refuses them on a synced laptop).
const allSettings = preparedQuery<[], { name: string; value: string }>(0, (db) => db.selectFrom('sync_settings').selectAll());

export async function readSettings(db: Kysely<Database>): Promise<Partial<Record<SettingName, string>>> {
  const { rows } = await allSettings.execute(db);
  return Object.fromEntries(rows.map((r) => [r.name, r.value]));
}

/** Sets (or, with null, removes) settings in one transaction. */
export async function saveSettings(db: Kysely<Database>, values: Partial<Record<SettingName, string | null>>): Promise<void> {
  await write(db, async ({ trx }) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) continue;
      await trx.deleteFrom('sync_settings').where('name', '=', name).execute();
      if (value !== null) await trx.insertInto('sync_settings').values({ name, value }).execute();
    }
  });
}

const PUSH_BATCH = 500;
/** A push stays well under the central's body limit for it (routes/app/sync.ts). */
const PUSH_BYTES = 4 * 1024 * 1024;

/**
 * The next push after change number `after`: outbox rows in order, each record once with its
 * current state (a deleted record as a delete), numbered by its last outbox row in the push. Rows of
 * entities that are not pushed (master data, local-only tables) are stepped over: `last` covers them.
 */
export async function nextPush(db: Kysely<Database>, after: number, clientTime = now()): Promise<PushRequestBody | null> {
  const rows = await db.selectFrom('outbox').select(['seq', 'entity', 'record_id']).where('seq', '>', after).orderBy('seq').limit(PUSH_BATCH).execute();
  if (rows.length === 0) return null;
  const byKey = new Map<string, PushRequestBody['changes'][number]>();
  let bytes = 0;
  let last = after;
  for (const r of rows) {
    if (bytes > PUSH_BYTES) break;
    last = r.seq;
    const def = syncEntity(r.entity);
    if (!def || def.owner !== 'device') continue;
    const key = `${r.entity}\u0000${r.record_id}`;
    const seen = byKey.get(key);
    // First place (parents were written before their children), last number.
    if (seen) {
      seen.n = r.seq;
      continue;
    }
    const row = await syncRows(db).selectFrom(def.table).selectAll().where('id', '=', r.record_id).executeTakeFirst();
    const change = row
      ? { n: r.seq, entity: def.entity, id: r.record_id, op: 'upsert' as const, row: wireRow(row) }
      : { n: r.seq, entity: def.entity, id: r.record_id, op: 'delete' as const, row: null };
    bytes += JSON.stringify(change).length;
    byKey.set(key, change);
  }
  return { client_time: clientTime, last, changes: [...byKey.values()] };
}

/** Changes waiting to go up. */
export async function pendingRecords(db: Kysely<Database>, after: number): Promise<number> {
  const row = await db
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('seq', '>', after)
    .where('entity', 'in', PUSHED_ENTITIES)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Stores the central's answer: what it has applied, and its rejections (once each). */
export async function recordPushed(db: Kysely<Database>, answer: PushResponseBody): Promise<void> {
  await write(db, async ({ trx }) => {
    for (const r of answer.rejections) {
      const id = `local:${r.change_number}:${r.entity}:${r.record_id}`;
      const known = await trx.selectFrom('sync_rejections').select('id').where('id', '=', id).executeTakeFirst();
      if (!known) {
        await trx
          .insertInto('sync_rejections')
          .values({ id, device_id: null, change_number: r.change_number, entity: r.entity, record_id: r.record_id, reason: r.reason, created_at: r.created_date })
          .execute();
      }
    }
    await trx.deleteFrom('sync_settings').where('name', '=', 'pushed_seq').execute();
    await trx.insertInto('sync_settings').values({ name: 'pushed_seq', value: String(answer.last_change) }).execute();
  });
}

/**
 * Applies a pull and its new cursor in one transaction. Pulled rows are not local changes: they add
 * no outbox row (nothing echoes back), they only tell read caches. Master data moves md_import_status.
 */
export async function applyPull(db: Kysely<Database>, pull: PullResponseBody): Promise<{ applied: number }> {
  const columns = await syncColumns(db);
  return write(db, async (ctx) => {
    const t = syncRows(ctx.trx);
    // A page holds whole transactions, parents first; deferring still lets a rename's child arrive
    // in the same pull after its new parent.
    if (!isPostgres(db)) await sql`PRAGMA defer_foreign_keys = ON`.execute(ctx.trx);
    let master = 0;
    const upserts = pull.changes.filter((c) => c.op === 'upsert');
    const deletes = pull.changes.filter((c) => c.op === 'delete').reverse();
    // The overview's facts of the visits this page touches, projected in the same transaction.
    const visits = new Set(await visitsOfChanges(ctx.trx, deletes));
    for (const c of [...upserts, ...deletes]) {
      const def = syncEntity(c.entity);
      const known = def && columns.get(def.table);
      if (!def || !known) continue;
      if (c.op === 'delete') {
        await t.deleteFrom(def.table).where('id', '=', c.id).execute();
      } else {
        const row = Object.fromEntries(Object.entries(c.row ?? {}).filter(([k]) => known.has(k) && !def.localColumns?.includes(k)));
        for (const local of def.localColumns ?? []) row[local] = null;
        const { id: _id, ...rest } = row;
        await t.insertInto(def.table).values(row).onConflict((oc) => oc.column('id').doUpdateSet(rest)).execute();
      }
      ctx.touched(def.entity);
      if (def.owner === 'central') master += 1;
    }
    for (const v of await visitsOfChanges(ctx.trx, upserts)) visits.add(v);
    await projectVisits(ctx.trx, visits);
    // Pulled rows bypass the resources' afterWrite: the SKUs' facts follow their brand and category here.
    await reclassifySkus(ctx.trx, pull.changes.filter((c) => c.entity === 'sku').map((c) => c.id));
    if (master > 0) {
      await ctx.trx.insertInto('imports').values({ id: `sync:${now()}:${Math.random().toString(36).slice(2, 8)}`, finished_at: now(), source: 'sync', summary: JSON.stringify({ synced: master }) }).execute();
      ctx.touched('import');
    }
    await ctx.trx.deleteFrom('sync_settings').where('name', '=', 'pull_cursor').execute();
    await ctx.trx.insertInto('sync_settings').values({ name: 'pull_cursor', value: pull.cursor }).execute();
    return { applied: pull.changes.length };
  }, { alone: true });
}

export async function listRejections(db: Kysely<Database>, limit = 50) {
  const rows = await db.selectFrom('sync_rejections').selectAll().orderBy('data_id', 'desc').limit(limit).execute();
  return rows.map((r) => ({ change_number: Number(r.change_number), entity: r.entity, record_id: r.record_id, reason: r.reason, created_date: r.created_at, device: r.device_id }));
}
