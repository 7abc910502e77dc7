// The one place that chooses the SQL dialect. The laptop app and the headless service use SQLite in
// the data directory; the central instance can pass a PostgreSQL connection string instead. Domain
// code only ever sees `Kysely<Database>` and query builders, so it runs unchanged on both.
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresAdapter, PostgresDialect, SqliteDialect, type Dialect } from 'kysely';
import type { Database } from './schema.js';

export type DatabaseTarget =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; connectionString: string };

export interface DialectHandle {
  dialect: Dialect;
  /** Releases whatever the dialect holds open beyond Kysely's own destroy(). */
  close(): void;
  /**
   * A value that differs whenever anything in the database may have changed since it was last read,
   * by this process or any other; null where the dialect cannot tell (then nothing may be cached).
   */
  changeStamp(): string | null;
}

export function createDialect(target: DatabaseTarget): DialectHandle {
  if (target.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: target.connectionString });
    return { dialect: new PostgresDialect({ pool }), close: () => undefined, changeStamp: () => null };
  }
  const sqlite = new SQLite(target.file);
  // WAL lets readers (the UI, the sync engine) run while a write is in progress; foreign keys are off
  // by default in SQLite and must be switched on per connection.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  // data_version moves when another connection (a CLI import, another process) commits;
  // total_changes counts every row this connection has written, committed or not.
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  const totalChanges = sqlite.prepare('SELECT total_changes()').pluck();
  return {
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
    close: () => {
      if (sqlite.open) sqlite.close();
    },
    changeStamp: () => (sqlite.open ? `${dataVersion.get()}:${totalChanges.get()}` : null),
  };
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query afresh; preparing is most of the cost of a small SQLite read. The
 * builders produce the same SQL text for the same query shape (values are bound parameters), so
 * statements are kept by their SQL and reused. better-sqlite3 runs one statement at a time, so
 * reuse is safe; the cache starts over when full rather than tracking use.
 */
function withStatementCache(sqlite: SQLite.Database) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (!stmt) {
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
        stmt = sqlite.prepare(sql);
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
}

/** Migrations need this for the few DDL details that differ (auto-increment integer keys). */
export function isPostgres(db: Kysely<Database> | Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
