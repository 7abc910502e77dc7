// The IndexedDB database (Dexie, ~95 KB of script) loaded when something first needs it rather than
// with the app's first script: the shell and a screen's first rows need none of it.
import type { RendererDatabase } from './database';

/** The IndexedDB database's name (RendererDatabase's default). */
export const DATABASE_NAME = 'shelf-audit';

let loading: Promise<RendererDatabase> | null = null;

export function database(): Promise<RendererDatabase> {
  loading ??= import('./database').then((m) => m.db);
  return loading;
}

/**
 * The database, or null when this profile has none yet, so holds nothing to read: a reader (a draft
 * to restore) then does not load Dexie's code and create the database for nothing. Asked each time
 * until the database is opened here, since another tab may create it.
 */
export async function databaseIfExists(): Promise<RendererDatabase | null> {
  if (loading || typeof indexedDB.databases !== 'function') return database();
  const names = await indexedDB.databases();
  return names.some((d) => d.name === DATABASE_NAME) ? database() : null;
}
