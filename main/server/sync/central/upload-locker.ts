// The lock each tus request takes on its upload (a PATCH must not write while another writes the same
// upload), shared by every central process: PostgreSQL's session advisory locks, taken on one
// connection per process that is held for the process's life. A process that dies loses its
// connection and so its locks: a cut upload continues at once on another process. Within a process an
// in-memory table comes first (a session's advisory locks are re-entrant, so two requests of one
// process would both get the database's lock). On SQLite (one process) tus's in-memory locker serves.
import { sql, type Kysely } from 'kysely';
import { MemoryLocker } from '@tus/server';
import type { Lock, Locker, RequestRelease } from '@tus/utils';
import { isPostgres } from '../../storage/dialect.js';
import type { Database } from '../../storage/schema.js';
import { AdvisoryConnection } from './advisory-connection.js';

/** How long a request waits for an upload that another one holds before it is told to retry (423). */
const WAIT_MS = 20_000;
const POLL_MS = 100;

const busy = { status_code: 423, body: JSON.stringify({ detail: 'Another request is writing this upload: retry shortly.' }) };

export class PgAdvisoryLocker implements Locker {
  /** Uploads locked by this process, with how to ask their holder to let go. */
  private readonly held = new Map<string, RequestRelease>();
  /** The one connection this process's locks live on. */
  private readonly connection: AdvisoryConnection;
  private closed = false;

  constructor(db: Kysely<Database>) {
    this.connection = new AdvisoryConnection(db);
  }

  private async query(text: 'lock' | 'unlock', id: string): Promise<boolean> {
    const key = `tus:${id}`;
    try {
      const conn = await this.connection.conn();
      const r =
        text === 'lock'
          ? await sql<{ ok: boolean }>`select pg_try_advisory_lock(hashtextextended(${key}, 0)) as ok`.execute(conn)
          : await sql<{ ok: boolean }>`select pg_advisory_unlock(hashtextextended(${key}, 0)) as ok`.execute(conn);
      return r.rows[0]?.ok === true;
    } catch (error) {
      // The connection broke (and with it every lock this process held): the next lock opens another.
      this.held.clear();
      this.connection.drop();
      throw error;
    }
  }

  async tryLock(id: string, requestRelease: RequestRelease): Promise<boolean> {
    if (this.held.has(id)) {
      // Held here: ask the holder to finish (tus ends its request), as tus's own locker does.
      await this.held.get(id)!();
      return false;
    }
    // Claimed before the first await, so a second request of this process waits here.
    this.held.set(id, requestRelease);
    try {
      if (await this.query('lock', id)) return true;
    } catch (error) {
      this.held.delete(id);
      throw error;
    }
    this.held.delete(id);
    return false;
  }

  async unlock(id: string): Promise<void> {
    try {
      await this.query('unlock', id);
    } finally {
      this.held.delete(id);
    }
  }

  newLock(id: string): Lock {
    return {
      lock: async (signal: AbortSignal, requestRelease: RequestRelease) => {
        const end = Date.now() + WAIT_MS;
        for (;;) {
          if (this.closed) throw busy;
          if (await this.tryLock(id, requestRelease)) return;
          if (signal.aborted || Date.now() > end) throw busy;
          await new Promise((r) => setTimeout(r, POLL_MS));
        }
      },
      unlock: () => this.unlock(id),
    };
  }

  /** Frees this process's locks and gives the connection back to the pool; before the database closes. */
  async close(): Promise<void> {
    this.closed = true;
    try {
      await this.connection.close();
    } finally {
      this.held.clear();
    }
  }
}

/** The locker for uploads stored in the bucket: shared through PostgreSQL, or in memory for one SQLite process. */
export function uploadLocker(db: Kysely<Database>): Locker & { close?: () => Promise<void> } {
  return isPostgres(db) ? new PgAdvisoryLocker(db) : new MemoryLocker();
}
