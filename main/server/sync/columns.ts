// The columns of each synced table, read once from the database itself, so a pushed or pulled row
// carries only real columns (never the per-instance data_id) and a hostile push cannot name others.
import type { Kysely } from 'kysely';
import { SYNC_ENTITIES } from './registry.js';

export type Columns = ReadonlyMap<string, ReadonlySet<string>>;
const cache = new WeakMap<Kysely<any>, Promise<Columns>>();

export function syncColumns(db: Kysely<any>): Promise<Columns> {
  let found = cache.get(db);
  if (!found) {
    found = (async () => {
      const tables = await db.introspection.getTables();
      const wanted = new Set(SYNC_ENTITIES.map((e) => e.table));
      return new Map(
        tables.filter((t) => wanted.has(t.name)).map((t) => [t.name, new Set(t.columns.map((c) => c.name).filter((c) => c !== 'data_id'))]),
      );
    })();
    cache.set(db, found);
  }
  return found;
}

/** The row as stored minus data_id and the entity's local columns: what travels in a push or a pull. */
export function wireRow(row: Record<string, unknown>, local: readonly string[] = []): Record<string, unknown> {
  const { data_id: _dataId, ...rest } = row;
  for (const c of local) delete rest[c];
  return rest;
}
