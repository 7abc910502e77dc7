// How the user last left a table (sort column and direction, page size), remembered per table. They
// are read once, all together, as the app starts (preloadTablePreferences): a table that opens later
// finds them in memory instead of waiting for IndexedDB before asking the server for its first page.
import { db } from './database';

export interface TableSortPreference {
  sortKey: string | null;
  direction: 'ascending' | 'descending';
  pageSize: number;
}

const PREFIX = 'table:';
const key = (table: string) => `${PREFIX}${table}`;

let all: Promise<Map<string, TableSortPreference>> | null = null;

function preferences(): Promise<Map<string, TableSortPreference>> {
  all ??= db.preferences
    .where('key')
    .startsWith(PREFIX)
    .toArray()
    .then((rows) => new Map(rows.map((r) => [r.key, r.value as TableSortPreference])));
  return all;
}

/** Starts reading the saved preferences (the app calls it at start). */
export function preloadTablePreferences(): void {
  preferences().catch(() => undefined);
}

export async function loadTablePreference(table: string): Promise<TableSortPreference | null> {
  return (await preferences()).get(key(table)) ?? null;
}

export async function saveTablePreference(table: string, value: TableSortPreference): Promise<void> {
  (await preferences().catch(() => null))?.set(key(table), value);
  await db.preferences.put({ key: key(table), value });
}
