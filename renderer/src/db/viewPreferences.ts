// How the user last left a table (sort column and direction, page size), remembered per table. Kept
// in localStorage, read synchronously: a table asks the server for its first page as it mounts,
// instead of waiting for IndexedDB to open (on a new profile, to be created) to learn its sort.
// Preferences earlier versions kept in IndexedDB are copied over once (importSavedPreferences).
import { databaseIfExists } from './lazyDatabase';

export interface TableSortPreference {
  sortKey: string | null;
  direction: 'ascending' | 'descending';
  pageSize: number;
}

const STORAGE_KEY = 'shelf-audit.table-preferences';
const IMPORTED_KEY = 'shelf-audit.table-preferences-imported';
const PREFIX = 'table:';

type Stored = Record<string, TableSortPreference>;

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function readAll(): Stored {
  try {
    const parsed: unknown = JSON.parse(storage()?.getItem(STORAGE_KEY) ?? '{}');
    return parsed && typeof parsed === 'object' ? (parsed as Stored) : {};
  } catch {
    return {};
  }
}

function writeAll(all: Stored): void {
  try {
    storage()?.setItem(STORAGE_KEY, JSON.stringify(all));
  } catch {
    // Storage full or refused: the table still works, it just forgets.
  }
}

export function tablePreference(table: string): TableSortPreference | null {
  const p = readAll()[table];
  return p && typeof p.pageSize === 'number' && (p.direction === 'ascending' || p.direction === 'descending') ? p : null;
}

export function saveTablePreference(table: string, value: TableSortPreference): void {
  const all = readAll();
  const kept = all[table];
  if (kept && kept.sortKey === value.sortKey && kept.direction === value.direction && kept.pageSize === value.pageSize) return;
  writeAll({ ...all, [table]: value });
}

/**
 * Copies the preferences that earlier versions kept in IndexedDB, once, in the background (the app
 * calls it at start); they replace what a table saved meanwhile, which was its defaults.
 */
export async function importSavedPreferences(): Promise<void> {
  if (storage()?.getItem(IMPORTED_KEY)) return;
  // A profile with no IndexedDB database yet has nothing to copy: IndexedDB's code need not load.
  const db = await databaseIfExists();
  if (!db) {
    storage()?.setItem(IMPORTED_KEY, '1');
    return;
  }
  const rows = await db.preferences.where('key').startsWith(PREFIX).toArray();
  const all = readAll();
  for (const r of rows) all[r.key.slice(PREFIX.length)] = r.value as TableSortPreference;
  writeAll(all);
  storage()?.setItem(IMPORTED_KEY, '1');
}
