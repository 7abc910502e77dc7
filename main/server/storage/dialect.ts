// The one place that chooses the SQL dialect. The laptop app and the headless service use SQLite in
// the data directory; the central instance can pass a PostgreSQL connection string instead. Domain
// code only ever sees `Kysely<Database>` and query builders, so it runs unchanged on both.
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresAdapter, PostgresDialect, SqliteDialect, type Dialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import { postgresChangeStamp, sqliteChangeStamps, sqliteTableVersions, type ChangeStamps } from './change-stamp.js';
import type { Database } from './schema.js';
import { DatabaseUnreachableError } from './database-unavailable.js';
import { statementName } from './prepared-query.js';
import { startCheckpointer } from './wal-checkpoint.js';
import { WalSync } from './wal-sync.js';

/** SQLite's default automatic checkpoint threshold, in pages. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;
/** The threshold beside the worker's checkpoints: see storage/wal-checkpoint.ts. */
const WORKER_AUTOCHECKPOINT_PAGES = 10_000;

export type DatabaseTarget =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; connectionString: string };

export interface DialectHandle {
  dialect: Dialect;
  /** Releases whatever the dialect holds open beyond Kysely's own destroy(). */
  close(): Promise<void>;
  /** See storage/change-stamp.ts. */
  stamps: ChangeStamps;
  /** SQLite: syncs the WAL after commits (storage/wal-sync.ts). */
  walSync?: WalSync;
  /** PostgreSQL: the read pool's dialect (context.ts, readDb); SQLite has its one connection. */
  readDialect?: Dialect;
}

/**
 * Connections of the read pool. A few: they serve screens' pages, each a query or two; the write pool
 * keeps node-postgres' default of 10.
 */
export const READ_POOL_SIZE = 4;

export function createDialect(target: DatabaseTarget): DialectHandle {
  if (target.kind === 'postgres') {
    const pool = survivingLostConnections(new pg.Pool({ connectionString: target.connectionString }));
    const stamp = postgresChangeStamp(target.connectionString);
    const readPool = survivingLostConnections(new pg.Pool({ connectionString: target.connectionString, max: READ_POOL_SIZE }));
    return {
      dialect: new PostgresDialect({ pool: withNamedStatements(pool) }),
      readDialect: new PostgresDialect({ pool: withNamedStatements(readPool) }),
      close: () => stamp.close(),
      stamps: stamp,
    };
  }
  const sqlite = new SQLite(target.file);
  // WAL lets readers (the UI, the sync engine) run while a write is in progress; foreign keys are off
  // by default in SQLite and must be switched on per connection.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  // NORMAL: COMMIT writes the WAL without syncing it; storage/wal-sync.ts syncs it off the event loop
  // before a commit is answered or anything it made visible leaves, so a commit is on disk before it
  // is answered, power loss included, as under FULL (that file says why).
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  // Checkpoints mostly from a worker thread where one can run (storage/wal-checkpoint.ts).
  const checkpointer = startCheckpointer(target.file, () => {
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
  });
  if (checkpointer) sqlite.pragma(`wal_autocheckpoint = ${WORKER_AUTOCHECKPOINT_PAGES}`);
  const tables = sqliteTableVersions(sqlite);
  return {
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
    close: async () => {
      await checkpointer?.stop();
      if (sqlite.open) sqlite.close();
    },
    stamps: sqliteChangeStamps(sqlite, tables),
    walSync: new WalSync(sqlite, `${target.file}-wal`, tables),
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

/**
 * node-postgres sends every query as an unnamed statement, which PostgreSQL parses and plans afresh
 * each time. The queries run on every request (storage/prepared-query.ts) go by name instead: each
 * connection prepares one once and then only binds and executes it.
 */
/**
 * A pool whose connections may end under it without taking the process along: PostgreSQL restarting,
 * an administrator's pg_terminate_backend, idle_session_timeout or the network. node-postgres emits
 * such an error on the pool (an idle connection) or on the connection (one checked out and between
 * queries, as the advisory locks' held connections are: sync/central/upload-locker.ts,
 * shared-push-turn.ts), and an error event nobody listens to ends the process. The pool has already
 * dropped an idle connection and opens another when one is next asked for; a held one fails its next
 * query, which its holder handles.
 */
function survivingLostConnections(pool: pg.Pool): pg.Pool {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => void client.on('error', () => undefined));
  return pool;
}

function withNamedStatements(pool: pg.Pool): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => ({
    // A cursor (Kysely's streaming) passes through as it is.
    query: ((query: string, parameters: unknown[]) => {
      const name = typeof query === 'string' ? statementName(query) : undefined;
      return name === undefined ? client.query(query, parameters) : client.query({ name, text: query, values: parameters });
    }) as unknown as PostgresPoolClient['query'],
    release: () => client.release(),
  });
  return {
    async connect() {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw new DatabaseUnreachableError(error);
      }
      let wrapped = clients.get(client);
      if (!wrapped) clients.set(client, (wrapped = wrap(client)));
      return wrapped;
    },
    end: () => pool.end(),
  };
}

/** Migrations need this for the few DDL details that differ (auto-increment integer keys). */
export function isPostgres(db: Kysely<Database> | Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
