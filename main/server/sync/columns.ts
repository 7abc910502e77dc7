// The columns of each synced table, read once from the database itself, so a pushed or pulled row
// carries only real columns (never the per-instance data_id) and a hostile push cannot name others.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { SYNC_ENTITIES, type SyncTable } from '../storage/sync-registry.js';
import type { WireRow } from './rows.js';

export type Columns = ReadonlyMap<SyncTable, ReadonlySet<string>>;
const cache = new WeakMap<Kysely<Database>, Promise<Columns>>();

export function syncColumns(db: Kysely<Database>): Promise<Columns> {
  let found = cache.get(db);
  if (!found) {
    found = (async () => {
      const tables = await db.introspection.getTables();
      const wanted = new Set<string>(SYNC_ENTITIES.map((e) => e.table));
      return new Map(
        tables.filter((t) => wanted.has(t.name)).map((t) => [t.name as SyncTable, new Set(t.columns.map((c) => c.name).filter((c) => c !== 'data_id'))]),
      );
    })();
    cache.set(db, found);
  }
  return found;
}

/** The row as stored minus data_id and the entity's local columns: what travels in a push or a pull. */
export function wireRow(row: WireRow, local: readonly string[] = []): WireRow {
  const { data_id: _dataId, ...rest } = row;
  for (const c of local) delete rest[c];
  return rest;
}
