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
