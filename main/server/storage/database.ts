import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Kysely, Migrator, type MigrationProvider } from 'kysely';
import type { ChangeStamp, StampSet, TableStamp } from './change-stamp.js';
import { createDialect, type DatabaseTarget } from './dialect.js';
import { migrations } from './migrations/index.js';
import { registerWalSync } from './wal-sync.js';
import type { Database } from './schema.js';

export const DATABASE_FILE = 'shelf-audit.sqlite';

export interface OpenDatabase {
  db: Kysely<Database>;
  /** For reads only (context.ts, readDb): PostgreSQL's read pool; on SQLite `db`. */
  readDb: Kysely<Database>;
  close(): Promise<void>;
  /** Read caches compare it to know they are still current (storage/change-stamp.ts). */
  changeStamp: ChangeStamp;
  /** The same for the key cache: moves only when an API key changes. */
  keyStamp: ChangeStamp;
  /** The same for one table: moves when its rows change (storage/change-stamp.ts). */
  tableStamp: TableStamp;
  /** Both, read together (ChangeStamps.set). */
  stampSet: () => StampSet | Promise<StampSet>;
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Opens (creating if needed) DIR/shelf-audit.sqlite and brings its schema up to date. */
export async function openDatabase(dataDir: string): Promise<OpenDatabase> {
  mkdirSync(dataDir, { recursive: true });
  return openDatabaseTarget({ kind: 'sqlite', file: path.join(dataDir, DATABASE_FILE) });
}

export async function openDatabaseTarget(target: DatabaseTarget): Promise<OpenDatabase> {
  const handle = createDialect(target);
  const db = new Kysely<Database>({ dialect: handle.dialect });
  const unregister = handle.walSync ? registerWalSync(db, handle.walSync) : () => undefined;
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    unregister();
    await db.destroy();
    await handle.close();
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
  // The table stamps' triggers, on the tables the migrations left.
  handle.stamps.install?.();
  const readDb = handle.readDialect ? new Kysely<Database>({ dialect: handle.readDialect }) : db;
  let closed = false;
  return {
    db,
    readDb,
    changeStamp: handle.stamps.data,
    keyStamp: handle.stamps.keys,
    tableStamp: (name) => handle.stamps.table(name),
    stampSet: () => handle.stamps.set(),
    async close() {
      if (closed) return;
      closed = true;
      // Commits still being synced are answered before the connection (and the WAL) goes.
      await handle.walSync?.close();
      unregister();
      if (readDb !== db) await readDb.destroy();
      await db.destroy();
      await handle.close();
    },
  };
}
