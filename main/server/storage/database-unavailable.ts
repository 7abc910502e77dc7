// Telling "the database cannot be reached now" from every other failure of a query, so a request that
// meets it is answered 503 with Retry-After (http/errors.ts) like the bucket away, not 500: the client
// did nothing wrong and the same request will do once PostgreSQL is back (the pools reconnect on their
// own: storage/dialect.ts), or once another process's long write on SQLite is done.

/** Seconds a client is told to wait (Retry-After) when the database is unreachable. */
export const DATABASE_RETRY_AFTER_S = 5;

/** A pool could not open a connection to PostgreSQL (storage/dialect.ts): `cause` says why. */
export class DatabaseUnreachableError extends Error {
  constructor(cause: unknown) {
    super(`the database cannot be reached: ${(cause as Error)?.message ?? cause}`, { cause });
    this.name = 'DatabaseUnreachableError';
  }
}

/**
 * PostgreSQL's SQLSTATEs for the server going or not taking connections: class 08 (connection
 * exception), the administrator's, a crash's and a start's shutdowns (57P01-57P03), too many connections.
 */
const SERVER_GOING = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;

/**
 * SQLite's "another connection holds the write lock" past the busy timeout (storage/dialect.ts): another
 * process on the same file (`serve --workers`, the CLI) writing for longer than that.
 */
const SQLITE_BUSY = /^SQLITE_(BUSY|LOCKED)(_[A-Z]+)?$/;

export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnreachableError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  if (typeof code === 'string' && (SERVER_GOING.test(code) || SQLITE_BUSY.test(code))) return true;
  // node-postgres' own words for a connection that ended under a query (no code).
  return /^Connection terminated( unexpectedly| due to connection timeout)?$/.test(error.message);
}
