// What a device pulls: every change committed on the central since its cursor that concerns it, with
// the records' state, read in ONE snapshot so the states and the new cursor agree.
//
// The cursor must never skip a change. On PostgreSQL an outbox `seq` is taken when the row is
// inserted, not when its transaction commits, so a cursor "seq > N" would skip a transaction that got
// seq 5 but committed after the one with seq 6. The cursor therefore follows transactions, like a
// PostgreSQL snapshot: every outbox row carries its transaction's id (txid, migration 0014-sync), and
// the cursor is "x:XMIN:T1,T2..." where XMIN is the snapshot's xmin (every transaction below it had
// finished when the pull read) and T1.. are the transactions at or above XMIN it already delivered
// (committed, yet newer than XMIN). The next pull takes every visible row with txid >= XMIN whose
// txid is not in that list. A transaction still running at the first pull is >= XMIN and not listed,
// so a later pull takes it once it commits. On SQLite one writer commits at a time, in seq order, so
// the cursor is simply "s:SEQ".
import type { Kysely, Selectable } from 'kysely';
import type { PullResponseBody } from '../../schemas/sync.js';
import { isPostgres } from '../../storage/dialect.js';
import type { Database, OutboxTable } from '../../storage/schema.js';
import { syncColumns, wireRow } from '../columns.js';
import { syncEntity, type SyncEntity } from '../../storage/sync-registry.js';
import { syncRows } from '../rows.js';

export interface PullingDevice {
  id: string;
  role: 'auditor' | 'supervisor';
}

interface Cursor {
  xmin: bigint;
  seen: bigint[];
  seq: number;
}

export class CursorError extends Error {}

export function parseCursor(text: string | undefined): Cursor {
  if (!text || text === '0') return { xmin: 0n, seen: [], seq: 0 };
  let m = /^s:(\d{1,18})$/.exec(text);
  if (m) return { xmin: 0n, seen: [], seq: Number(m[1]) };
  m = /^x:(\d{1,20}):((?:\d{1,20}(?:,\d{1,20})*)?)$/.exec(text);
  if (m) return { xmin: BigInt(m[1]), seen: m[2] ? m[2].split(',').map((t) => BigInt(t)) : [], seq: 0 };
  throw new CursorError('Invalid cursor.');
}

type OutboxRow = Pick<Selectable<OutboxTable>, 'seq' | 'txid' | 'entity' | 'record_id' | 'op' | 'device_id'>;

/** The visit a record of `def` belongs to (the registry's `visit` column), or undefined. */
async function visitOf(trx: Kysely<Database>, def: SyncEntity, recordId: string): Promise<string | undefined> {
  if (!def.visit) return undefined;
  const row = await syncRows(trx).selectFrom(def.table).select(def.visit).where('id', '=', recordId).executeTakeFirst();
  const ref = row?.[def.visit];
  if (typeof ref !== 'string') return undefined;
  if (def.visit === 'visit_id') return ref;
  const scene = await trx.selectFrom('scenes').select('visit_id').where('id', '=', ref).executeTakeFirst();
  return scene?.visit_id;
}

/** Whether `device` receives this change (docs/sync.md, "Who owns what"). */
async function concerns(trx: Kysely<Database>, device: PullingDevice, row: OutboxRow): Promise<boolean> {
  const def = syncEntity(row.entity);
  if (!def) return false;
  if (def.owner === 'central') return true;
  if (row.device_id === device.id) return false; // its own change: it has it
  if (device.role === 'supervisor') return true;
  const owner = await trx.selectFrom('sync_owners').select('device_id').where('entity', '=', def.entity).where('record_id', '=', row.record_id).executeTakeFirst();
  if (owner?.device_id === device.id) return true;
  // An upload made on the central itself (no device owns it) is a reference image's photo: everyone's;
  // so is a device's scene photo that references were learnt from (scenes/learn.ts).
  if (def.entity === 'upload' && !owner) return true;
  if (def.entity === 'upload' && (await trx.selectFrom('sku_images').select('id').where('upload_id', '=', row.record_id).executeTakeFirst())) return true;
  // Made on another device for this device's visit: it belongs with the visit.
  const visit = await visitOf(trx, def, row.record_id);
  if (visit === undefined) return false;
  const visitOwner = await trx.selectFrom('sync_owners').select('device_id').where('entity', '=', 'visit').where('record_id', '=', visit).executeTakeFirst();
  return visitOwner?.device_id === device.id;
}

/** Changes per pull, at most (whole transactions: a page may run over to finish the last one). */
export const DEFAULT_PULL_PAGE = 2_000;

/**
 * The rows of one page: whole transactions in order, at least `page` rows when there are more, and
 * the txid of the first transaction left for the next page (null when none is).
 */
function cutPage(rows: OutboxRow[], page: number): { taken: OutboxRow[]; nextTxid: string | null } {
  let i = Math.min(page, rows.length);
  while (i < rows.length && String(rows[i].txid) === String(rows[i - 1].txid)) i++;
  return { taken: rows.slice(0, i), nextTxid: i < rows.length ? String(rows[i].txid) : null };
}

export async function readPull(db: Kysely<Database>, device: PullingDevice, cursorText: string | undefined, page = DEFAULT_PULL_PAGE): Promise<PullResponseBody> {
  const cursor = parseCursor(cursorText);
  const columns = await syncColumns(db);
  const pg = isPostgres(db);
  const run = async (trx: Kysely<Database>) => {
    let rows: OutboxRow[];
    let next: string;
    let more: boolean;
    if (pg) {
      // First statement of the transaction: it fixes the snapshot every later read sees.
      const snap = await trx
        .selectNoFrom((eb) => eb.fn<string>('pg_snapshot_xmin', [eb.fn('pg_current_snapshot', [])]).as('xmin'))
        .executeTakeFirstOrThrow();
      const snapXmin = BigInt(snap.xmin);
      let q = trx.selectFrom('outbox').select(['seq', 'txid', 'entity', 'record_id', 'op', 'device_id']).where('txid', '>=', cursor.xmin.toString() as never);
      if (cursor.seen.length > 0) q = q.where('txid', 'not in', cursor.seen.map((t) => t.toString()) as never);
      const cut = cutPage((await q.orderBy('txid').orderBy('seq').execute()) as OutboxRow[], page);
      rows = cut.taken;
      more = cut.nextTxid !== null;
      // Everything below the first transaction left out has been delivered, if it has finished:
      // below the snapshot's xmin every transaction has. Above, the delivered ones are listed.
      const xmin = cut.nextTxid !== null && BigInt(cut.nextTxid) < snapXmin ? BigInt(cut.nextTxid) : snapXmin;
      const seen = new Set<string>(cursor.seen.filter((t) => t >= xmin).map(String));
      for (const r of rows) if (BigInt(r.txid) >= xmin) seen.add(String(r.txid));
      next = `x:${xmin}:${[...seen].join(',')}`;
    } else {
      const all = (await trx.selectFrom('outbox').select(['seq', 'txid', 'entity', 'record_id', 'op', 'device_id']).where('seq', '>', cursor.seq).orderBy('seq').execute()) as OutboxRow[];
      const cut = cutPage(all, page);
      rows = cut.taken;
      more = cut.nextTxid !== null;
      next = `s:${rows.length > 0 ? rows[rows.length - 1].seq : cursor.seq}`;
    }
    // The latest state of each record once; order: parents first (registry order), then as written.
    const wanted = new Map<string, OutboxRow>();
    for (const r of rows) {
      const key = `${r.entity}\u0000${r.record_id}`;
      if (wanted.has(key) || (await concerns(trx, device, r))) {
        wanted.delete(key);
        wanted.set(key, r);
      }
    }
    const changes: PullResponseBody['changes'] = [];
    for (const r of wanted.values()) {
      const def = syncEntity(r.entity)!;
      if (!columns.has(def.table)) continue;
      const row = await syncRows(trx).selectFrom(def.table).selectAll().where('id', '=', r.record_id).executeTakeFirst();
      changes.push(row ? { entity: def.entity, id: r.record_id, op: 'upsert', row: wireRow(row, def.localColumns) } : { entity: def.entity, id: r.record_id, op: 'delete', row: null });
    }
    changes.sort((a, b) => syncEntity(a.entity)!.order - syncEntity(b.entity)!.order);
    return { cursor: next, more, changes };
  };
  return pg ? db.transaction().setIsolationLevel('repeatable read').execute(run) : db.transaction().execute(run);
}
