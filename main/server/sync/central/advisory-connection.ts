// The one PostgreSQL connection a central process holds its session advisory locks on (the uploads'
// locks, upload-locker.ts; the shared push turn, shared-push-turn.ts): taken from the pool on first use
// and kept, since a session's locks live as long as its connection. A process that dies loses the
// connection and its locks with it, so the other processes go on at once.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';

export class AdvisoryConnection {
  private connection: Promise<{ conn: Kysely<Database>; release: () => void }> | null = null;

  constructor(private readonly db: Kysely<Database>) {}

  /** The connection (opened on first use, again after `drop`). */
  async conn(): Promise<Kysely<Database>> {
    this.connection ??= new Promise((resolve, reject) => {
      this.db
        .connection()
        .execute((conn) => new Promise<void>((release) => resolve({ conn, release })))
        .catch((error: unknown) => {
          this.connection = null;
          reject(error);
        });
    });
    return (await this.connection).conn;
  }

  /**
   * After a failed query: the connection is given back without this process's locks (if it still
   * answers), so no other user of the pool inherits them, and the next `conn` opens another.
   */
  drop(): void {
    const c = this.connection;
    this.connection = null;
    c?.then(async ({ conn, release }) => {
      await sql`select pg_advisory_unlock_all()`.execute(conn).catch(() => undefined);
      release();
    }).catch(() => undefined);
  }

  /** Frees this process's locks and gives the connection back to the pool; before the database closes. */
  async close(): Promise<void> {
    const c = this.connection;
    this.connection = null;
    const open = c ? await c.catch(() => null) : null;
    if (!open) return;
    try {
      // Session locks outlive a connection's return to the pool: freed here, or another user would inherit them.
      await sql`select pg_advisory_unlock_all()`.execute(open.conn);
    } catch {
      // The connection broke, and its locks went with it.
    } finally {
      open.release();
    }
  }
}
