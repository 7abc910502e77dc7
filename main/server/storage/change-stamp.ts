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

/**
 * A database's stamps: `data` moves with any change; `keys` only with a change to the API keys (the
 * version that migration 0020's triggers move), so the key cache survives record writes.
 */
export interface ChangeStamps {
  data: ChangeStamp;
  keys: ChangeStamp;
}

/**
 * SQLite: data_version moves when another connection (a CLI import, another process) commits;
 * total_changes counts every row this connection has written, committed or not.
 */
export function sqliteChangeStamps(sqlite: SQLite.Database): ChangeStamps {
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  const totalChanges = sqlite.prepare('SELECT total_changes()').pluck();
  // Prepared on first use: the table exists once the migrations have run.
  let keyVersion: SQLite.Statement | undefined;
  return {
    data: () => (sqlite.open ? `${dataVersion.get()}:${totalChanges.get()}` : null),
    // The one connection also writes: this may read a version that a write in progress set and
    // later undoes. The triggers set random versions, so none comes back for other keys.
    keys: () => (sqlite.open ? String((keyVersion ??= sqlite.prepare('SELECT version FROM api_key_version').pluck().safeIntegers()).get()) : null),
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
 * The key stamp is the API-key table's version (migration 0020), read by the same query.
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
  type Stamps = [data: string | null, keys: string | null];
  let waiting: Array<(stamps: Stamps) => void> = [];
  let reading = false;
  let closed = false;
  const read = async (): Promise<Stamps> => {
    try {
      const { rows } = await pool.query<[string, string]>({
        text: 'SELECT pg_current_snapshot()::text, (SELECT version::text FROM api_key_version)',
        rowMode: 'array',
      });
      return rows[0];
    } catch {
      return [null, null];
    }
  };
  const pump = async () => {
    reading = true;
    // Queued first: what a request asks for at once (both stamps, for a read) goes in one query.
    await Promise.resolve();
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      const stamps = closed ? ([null, null] as Stamps) : await read();
      for (const answer of batch) answer(stamps);
    }
    reading = false;
  };
  const next = () =>
    new Promise<Stamps>((resolve) => {
      waiting.push(resolve);
      if (!reading) void pump();
    });
  return {
    data: async () => (await next())[0],
    keys: async () => (await next())[1],
    async close() {
      closed = true;
      await pool.end();
    },
  };
}
