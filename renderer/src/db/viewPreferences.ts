// How the user last left a table (sort column and direction, page size), remembered per table.
import { db } from './database';

export interface TableSortPreference {
  sortKey: string | null;
  direction: 'ascending' | 'descending';
  pageSize: number;
}

const key = (table: string) => `table:${table}`;

export async function loadTablePreference(table: string): Promise<TableSortPreference | null> {
  return ((await db.preferences.get(key(table)))?.value as TableSortPreference | undefined) ?? null;
}

export async function saveTablePreference(table: string, value: TableSortPreference): Promise<void> {
  await db.preferences.put({ key: key(table), value });
}
