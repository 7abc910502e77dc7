// Every write runs here: one transaction, and in the same transaction one outbox row per changed
// record, so the sync engine can push exactly what changed and never sees a half-applied write.
import type { Kysely, Transaction } from 'kysely';
import { randomInt } from 'node:crypto';
import { isPostgres } from './dialect.js';
import { now } from './ids.js';
import type { Database } from './schema.js';

export type Trx = Transaction<Database>;

export interface WriteContext {
  trx: Trx;
  /**
   * Records that `entity` row `id` was created/updated ('upsert') or deleted. `deviceId`: the central
   * applying a device's push names it, so pulls never echo that change back to the device.
   */
  changed(entity: string, id: string, op?: 'upsert' | 'delete', deviceId?: string | null): void;
  /** Tells read caches `entity` changed without an outbox row (rows a laptop pulled from the central). */
  touched(entity: string): void;
}

type Listener = (entities: ReadonlySet<string>) => void;
const listeners = new WeakMap<Kysely<Database>, Set<Listener>>();

/** Lets read-side caches (list counts) drop what a committed write made stale. */
export function onCommit(db: Kysely<Database>, listener: Listener): () => void {
  let set = listeners.get(db);
  if (!set) listeners.set(db, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/**
 * Runs `fn` in one transaction. Inside it, use `ctx.trx` only: on SQLite the one connection is held
 * for the whole transaction, so a query through the outer `db` would wait for it forever.
 */
export async function write<T>(db: Kysely<Database>, fn: (ctx: WriteContext) => Promise<T>): Promise<T> {
  const entities = new Set<string>();
  const result = await db.transaction().execute(async (trx) => {
    const changes: Array<{ entity: string; record_id: string; op: 'upsert' | 'delete'; device_id: string | null }> = [];
    const value = await fn({
      trx,
      changed(entity, id, op = 'upsert', deviceId) {
        changes.push({ entity, record_id: id, op, device_id: deviceId ?? null });
        entities.add(entity);
      },
      touched(entity) {
        entities.add(entity);
      },
    });
    if (changes.length > 0) {
      const at = now();
      // PostgreSQL stamps each row with its real transaction id (the column's default); on SQLite a
      // random number per transaction marks which rows committed together, so a pull page never
      // splits a transaction (sync/central/pull.ts).
      const txid = isPostgres(db) ? {} : { txid: randomInt(1, 2 ** 47) };
      // Chunked so a large import stays under SQLite's bound-parameter limit.
      for (let i = 0; i < changes.length; i += 200) {
        await trx
          .insertInto('outbox')
          .values(changes.slice(i, i + 200).map((c) => ({ ...c, created_at: at, ...txid })))
          .execute();
      }
    }
    return value;
  });
  if (entities.size > 0) for (const l of listeners.get(db) ?? []) l(entities);
  return result;
}
