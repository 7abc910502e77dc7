// A database's change stamp: a value that differs whenever anything in the database may have changed
// since it was last read, by this process or any other. Read caches (http/record-cache.ts,
// http/page-cache.ts, the key cache of http/auth.ts) keep what they computed under a stamp read before
// computing it, keep it only if the stamp read after is the same, and serve it only while a stamp read
// after the request arrived is still the same: so a write acknowledged by any process is seen by
// every later request to any process.
import type SQLite from 'better-sqlite3';
import pg from 'pg';

/** The current stamp; null where it cannot be told (then nothing may be cached). */
export type ChangeStamp = () => string | null | Promise<string | null>;

/**
 * SQLite: data_version moves when another connection (a CLI import, another process) commits;
 * total_changes counts every row this connection has written, committed or not.
 */
export function sqliteChangeStamp(sqlite: SQLite.Database): ChangeStamp {
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  const totalChanges = sqlite.prepare('SELECT total_changes()').pluck();
  return () => (sqlite.open ? `${dataVersion.get()}:${totalChanges.get()}` : null);
}

export interface PostgresChangeStamp {
  stamp: ChangeStamp;
  close(): Promise<void>;
}

/**
 * PostgreSQL: the cluster's current snapshot (xmin:xmax:xids in progress). A transaction that writes
 * takes an xid; when it commits, either its xid reaches past the old snapshot's xmax or it leaves the
 * old snapshot's in-progress list, so every commit changes the text. Commits elsewhere in the cluster
 * (other databases) change it too, which only costs a cache miss.
 *
 * It takes a round trip, on its own connection so it never queues behind the pool. Callers share it:
 * those who call while a read is in flight are answered by the next read, sent after they called, so
 * none is answered with a snapshot older than its call. Under load that is one query per round trip
 * for all requests. An error answers null (nothing cached) and the pool reconnects.
 */
export function postgresChangeStamp(connectionString: string): PostgresChangeStamp {
  const pool = new pg.Pool({ connectionString, max: 1 });
  // An idle connection dropped by the server is replaced on the next query; the error is not fatal.
  pool.on('error', () => undefined);
  let waiting: Array<(stamp: string | null) => void> = [];
  let reading = false;
  let closed = false;
  const read = async (): Promise<string | null> => {
    try {
      const { rows } = await pool.query<[string]>({ text: 'SELECT pg_current_snapshot()::text', rowMode: 'array' });
      return rows[0][0];
    } catch {
      return null;
    }
  };
  const pump = async () => {
    reading = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      const stamp = closed ? null : await read();
      for (const answer of batch) answer(stamp);
    }
    reading = false;
  };
  return {
    stamp: () =>
      new Promise<string | null>((resolve) => {
        waiting.push(resolve);
        if (!reading) void pump();
      }),
    async close() {
      closed = true;
      await pool.end();
    },
  };
}
