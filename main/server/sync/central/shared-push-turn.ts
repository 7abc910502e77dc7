// The push turn shared by every central process (`serve --workers N`, or processes on several hosts):
// a PostgreSQL session advisory lock, taken on one connection per process that is held for the
// process's life, as the uploads' locks are (upload-locker.ts). Each process still queues its own
// pushes (push-turns.ts); while the office reads, its one turn also waits for this lock, so the
// central as a whole applies one push at a time and its pacing holds for all processes, where before
// each process paced only its own pushes (two processes: two pushes at once, and the readers' p99
// 2.7-3.4 times theirs without pushes). With no reads the processes push side by side, at full speed.
// A process that dies loses its connection and so the lock: the others go on at once.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import { AdvisoryConnection } from './advisory-connection.js';
import type { SharedTurn } from './push-turns.js';

/** The lock's key, hashed to PostgreSQL's lock number as the uploads' are (theirs `tus:` and an upload id). */
const PUSH_TURN_KEY = 'central:push-turn';

export class PgSharedPushTurn implements SharedTurn {
  /** The one connection this process's lock lives on. */
  private readonly connection: AdvisoryConnection;
  /** The lock's letting go, pending while the pacing holds it (give's wait) and until the unlock is done. */
  private letting: Promise<void> = Promise.resolve();
  private hold: { timer: NodeJS.Timeout; end: () => void } | null = null;
  private held = false;
  private closed = false;

  constructor(db: Kysely<Database>) {
    this.connection = new AdvisoryConnection(db);
  }

  /** Waits for the lock (PostgreSQL wakes the waiter when its holder lets go). */
  async take(): Promise<void> {
    // A session's advisory locks are re-entrant: taken again before the last give let go, the lock would
    // stay with this process. Once let go, a process already waiting gets it first (PostgreSQL's queue).
    await this.letting;
    if (this.closed) throw new Error('the shared push turn is closed');
    const conn = await this.connection.conn();
    try {
      await sql`select pg_advisory_lock(hashtextextended(${PUSH_TURN_KEY}, 0))`.execute(conn);
      this.held = true;
    } catch (error) {
      this.dropConnection();
      throw error;
    }
  }

  /** Lets the lock go, after `afterMs` (the pacing's wait while the office reads) when given. */
  give(afterMs = 0): void {
    if (!this.held) return;
    const unlock = async () => {
      if (!this.held) return;
      this.held = false;
      try {
        await sql`select pg_advisory_unlock(hashtextextended(${PUSH_TURN_KEY}, 0))`.execute(await this.connection.conn());
      } catch {
        // The connection broke, and the lock went with it.
        this.dropConnection();
      }
    };
    if (afterMs <= 0) {
      this.letting = unlock();
      return;
    }
    this.letting = new Promise<void>((resolve) => {
      const end = () => {
        this.hold = null;
        resolve(unlock());
      };
      // Unreferenced: the pushes waiting for it keep a serving process alive; close() ends it early.
      this.hold = { timer: setTimeout(end, afterMs).unref(), end };
    });
  }

  /** A connection that failed may still hold the lock: given back only once it has let go of it. */
  private dropConnection(): void {
    this.held = false;
    this.connection.drop();
  }

  /** Lets go of the lock at once and gives the connection back to the pool; before the database closes. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.hold) {
      clearTimeout(this.hold.timer);
      this.hold.end();
    }
    await this.letting;
    this.held = false;
    await this.connection.close();
  }
}
