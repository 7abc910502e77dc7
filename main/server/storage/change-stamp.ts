// A database's change stamp: a value that differs whenever anything in the database may have changed
// since it was last read, by this process or any other. Read caches (http/record-cache.ts,
// http/page-cache.ts) keep what they computed under a stamp read before computing it, keep it only if
// the stamp read after is the same, and serve it only while a stamp read after the request arrived is
// still the same: so a write acknowledged by any process is seen by every later request to any
// process. The key cache of http/auth.ts does the same under a stamp of the API keys alone.
import type SQLite from 'better-sqlite3';
import pg from 'pg';

/** The current stamp; null where it cannot be told (then nothing may be cached). */
export type ChangeStamp = () => string | null | Promise<string | null>;
/** The current stamp of one table's rows (ChangeStamps.table). */
export type TableStamp = (table: string) => string | null | Promise<string | null>;

/** The whole database's stamp and each table's, as of one read: what a request reads once. */
export interface StampSet {
  data(): string | null | Promise<string | null>;
  table: TableStamp;
  /** The API keys' stamp as of the same read. */
  keys(): string | null | Promise<string | null>;
}

/**
 * A database's stamps: `data` moves with any change; `keys` only with a change to the API keys (the
 * version that migration 0020's triggers move), so the key cache survives record writes; `table`
 * moves with any change to one table's rows (and, where that cannot be told, with any change), so a
 * write to the brands leaves what is kept of the SKUs current.
 */
export interface ChangeStamps {
  data: ChangeStamp;
  keys: ChangeStamp;
  table: TableStamp;
  /**
   * The stamps as of now, read together where that saves round trips (PostgreSQL: one query for the
   * snapshot and every table's version); SQLite reads each when asked.
   */
  set(): StampSet | Promise<StampSet>;
  /** Sets up what `table` needs; called once the schema is migrated (storage/database.ts). */
  install?(): void;
}

/** A table's version as of now, by name (SQLite: tableVersions); undefined for a table not followed. */
export type TableVersions = {
  get(name: string): bigint | undefined;
  all(): Map<string, bigint>;
  /** Whether the table's version is in the database file, moved by every process's writes. */
  shared(name: string): boolean;
  /**
   * PRAGMA data_version and these tables' versions (null: not followed), read in one statement: what
   * the WAL-sync gate (storage/wal-sync.ts, pendingFor) compares for every answer. Undefined: not known.
   */
  withDataVersion?(names: readonly string[]): { dataVersion: number; versions: Array<bigint | null> } | undefined;
};

/**
 * SQLite: each table's version, moved by TEMP triggers on this connection: every row this connection
 * inserts, updates or deletes in a table (through any code path, foreign-key actions and other
 * triggers included) sets that table's version to a new random value, in the same transaction (a
 * rolled-back write rolls it back; the value is random so that a version read inside an undone write
 * never comes back for other rows, as for the key version of migration 0020). TEMP: per connection,
 * in memory, nothing written to the database file, no lock shared with other processes; their
 * commits are seen by data_version instead (`table` stamps include it). The tables are those that exist
 * when `install` runs (after the migrations); any other table's stamp is the whole database's.
 */
export function sqliteTableVersions(sqlite: SQLite.Database): TableVersions & { install(): void } {
  let one: SQLite.Statement | undefined;
  let oneShared: SQLite.Statement | undefined;
  let every: SQLite.Statement | undefined;
  /** withDataVersion's statements, by the tables they read. */
  const together = new Map<string, SQLite.Statement>();
  // The tables migration 0027 follows in the database file: no TEMP trigger for them.
  let shared = new Set<string>();
  return {
    install() {
      sqlite.exec('CREATE TEMP TABLE IF NOT EXISTS table_version (name TEXT PRIMARY KEY, version INTEGER NOT NULL)');
      shared = new Set(sqlite.prepare('SELECT name FROM main.table_versions').pluck().all() as string[]);
      const tables = sqlite.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
      const add = sqlite.prepare('INSERT OR IGNORE INTO temp.table_version (name, version) VALUES (?, random())');
      sqlite.transaction(() => {
        for (const name of tables) {
          if (shared.has(name)) continue;
          add.run(name);
          const quoted = `"${name.replaceAll('"', '""')}"`;
          const literal = `'${name.replaceAll("'", "''")}'`;
          for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
            sqlite.exec(
              `CREATE TEMP TRIGGER IF NOT EXISTS "table_version_${name.replaceAll('"', '""')}_${event.toLowerCase()}" AFTER ${event} ON main.${quoted} ` +
                `BEGIN UPDATE temp.table_version SET version = random() WHERE name = ${literal}; END`,
            );
          }
        }
      })();
      one = sqlite.prepare('SELECT version FROM temp.table_version WHERE name = ?').pluck().safeIntegers();
      oneShared = sqlite.prepare('SELECT version FROM main.table_versions WHERE name = ?').pluck().safeIntegers();
      every = sqlite.prepare('SELECT name, version FROM temp.table_version UNION ALL SELECT name, version FROM main.table_versions').raw().safeIntegers();
    },
    get: (name) => (one && oneShared && sqlite.open ? ((shared.has(name) ? oneShared : one).get(name) as bigint | undefined) : undefined),
    withDataVersion(names) {
      if (!every || !sqlite.open) return undefined;
      const key = names.join('\0');
      let statement = together.get(key);
      if (!statement) {
        const versions = names.map((name) => (shared.has(name) ? '(SELECT version FROM main.table_versions WHERE name = ?)' : '(SELECT version FROM temp.table_version WHERE name = ?)'));
        statement = sqlite.prepare(`SELECT (SELECT data_version FROM pragma_data_version), ${versions.join(', ')}`).raw().safeIntegers();
        if (together.size >= 64) together.clear();
        together.set(key, statement);
      }
      const [dataVersion, ...versions] = statement.get(...names) as Array<bigint | null>;
      return { dataVersion: Number(dataVersion), versions };
    },
    all: () => new Map(every && sqlite.open ? (every.all() as Array<[string, bigint]>) : []),
    shared: (name) => shared.has(name),
  };
}

/**
 * SQLite: data_version moves when another connection (a CLI import, another process) commits;
 * total_changes counts every row this connection has written, committed or not.
 */
export function sqliteChangeStamps(sqlite: SQLite.Database, tables: TableVersions & { install(): void }): ChangeStamps {
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  const totalChanges = sqlite.prepare('SELECT total_changes()').pluck();
  const data = () => (sqlite.open ? `${dataVersion.get()}:${totalChanges.get()}` : null);
  const table = (name: string) => {
    const version = tables.get(name);
    if (version === undefined) return data();
    // A version in the database file moves with every process's writes; a TEMP one only with this
    // connection's, so data_version (another connection's commit may have changed any table) joins it.
    return tables.shared(name) ? `${name}:${version}` : `${dataVersion.get()}:${name}:${version}`;
  };
  // Read when asked, which is after the request arrived: as fresh as a read made now. Each stamp is
  // its own statement: one statement returning every table's version (one read transaction) was tried
  // for issue 40 and cost more (10 µs against 2.6 to 3.1 µs a stamp: rows, not transactions, cost).
  let keyVersion: SQLite.Statement | undefined;
  const keys = () => (sqlite.open ? String((keyVersion ??= sqlite.prepare('SELECT version FROM api_key_version').pluck().safeIntegers()).get()) : null);
  const set: StampSet = { data, table, keys };
  return {
    data,
    install: () => tables.install(),
    table,
    set: () => set,
    // The one connection also writes: this may read a version that a write in progress set and
    // later undoes. The triggers set random versions, so none comes back for other keys.
    keys,
  };
}

export interface PostgresChangeStamp extends ChangeStamps {
  close(): Promise<void>;
}

/**
 * PostgreSQL: the cluster's current snapshot (xmin:xmax:xids in progress). A transaction that writes
 * takes an xid; when it commits, either its xid reaches past the old snapshot's xmax or it leaves the
 * old snapshot's in-progress list, so every commit changes the text. Commits elsewhere in the cluster
 * (other databases) change it too, which only costs a cache miss.
 *
 * The key stamp is the API-key table's version (migration 0020), read by the same query; so are the
 * followed tables' versions (migration 0027), each a table's stamp (the others': the snapshot).
 *
 * It takes a round trip, on its own connection so it never queues behind the pool. Callers share it:
 * those who call while a read is in flight are answered by the next read, sent after they called, so
 * none is answered with a snapshot older than its call. Under load that is one query per round trip
 * for all requests, of either stamp. An error answers null (nothing cached) and the pool reconnects.
 */
export function postgresChangeStamp(connectionString: string): PostgresChangeStamp {
  const pool = new pg.Pool({ connectionString, max: 1 });
  // An idle connection dropped by the server is replaced on the next query; the error is not fatal.
  pool.on('error', () => undefined);
  type Stamps = [data: string | null, keys: string | null, tables: Record<string, string> | null];
  let waiting: Array<(stamps: Stamps) => void> = [];
  let reading = false;
  let closed = false;
  const read = async (): Promise<Stamps> => {
    try {
      const { rows } = await pool.query<Stamps>({
        text: 'SELECT pg_current_snapshot()::text, (SELECT version::text FROM api_key_version), (SELECT json_object_agg(name, version::text) FROM table_versions)',
        rowMode: 'array',
      });
      return rows[0];
    } catch {
      return [null, null, null];
    }
  };
  const pump = async () => {
    reading = true;
    // Queued first: what a request asks for at once (both stamps, for a read) goes in one query.
    await Promise.resolve();
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      const stamps = closed ? ([null, null, null] as Stamps) : await read();
      for (const answer of batch) answer(stamps);
    }
    reading = false;
  };
  const next = () =>
    new Promise<Stamps>((resolve) => {
      waiting.push(resolve);
      if (!reading) void pump();
    });
  const data = async () => (await next())[0];
  /** A table not followed: the snapshot, which says nothing of which table changed. */
  const tableOf = ([snapshot, , tables]: Stamps, name: string) => {
    const version = snapshot === null ? undefined : tables?.[name];
    return version === undefined ? snapshot : `${name}:${version}`;
  };
  return {
    data,
    async table(name) {
      return tableOf(await next(), name);
    },
    async set() {
      const stamps = await next();
      return { data: () => stamps[0], table: (name) => tableOf(stamps, name), keys: () => stamps[1] };
    },
    keys: async () => (await next())[1],
    async close() {
      closed = true;
      await pool.end();
    },
  };
}
