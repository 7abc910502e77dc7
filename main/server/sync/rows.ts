// Sync moves whole rows of a table named by a change (its entity's table), with the columns the
// database itself has (columns.ts): which table is known only at run time, so Kysely's per-table
// column types cannot follow it. Sync reads and writes such rows through this view instead: the table
// names are the registry's, the columns plain strings and the values unknown.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { SyncTable } from '../storage/sync-registry.js';

/** A synced row as it travels: column -> plain value. */
export type WireRow = Record<string, unknown>;

/** Every synced table, its rows as plain column -> value records. */
export type SyncRows = { [T in SyncTable]: WireRow };

/**
 * `db` (or a transaction of it) seen as the synced tables' plain rows. The same connection and
 * transaction: only the type changes, since a row of a run-time-chosen table has no static shape.
 */
export function syncRows(db: Kysely<Database>): Kysely<SyncRows> {
  return db as unknown as Kysely<SyncRows>;
}
