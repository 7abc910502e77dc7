// The embedded server's port. The UI's offline store (IndexedDB) belongs to the page's origin, port
// included, so the app keeps to one configured port and only falls back to a free one when another
// program holds it.
export const DEFAULT_PORT = 8765;
export const PORT_ENV = 'SHELF_AUDIT_PORT';

/** The configured port: SHELF_AUDIT_PORT when set (0 means any free port), else DEFAULT_PORT. */
export function configuredPort(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[PORT_ENV]?.trim();
  if (!raw) return DEFAULT_PORT;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) throw new Error(`${PORT_ENV} must be a port number (0-65535), not "${raw}"`);
  return port;
}

/**
 * Starts a listener on the preferred port, or on a free one (port 0) when the preferred one is taken.
 * Trying the real listen, rather than probing first, leaves no window for another program to take the
 * port in between.
 */
export async function listenOnPreferredPort<T>(
  preferred: number,
  listen: (port: number) => Promise<T>,
): Promise<{ result: T; fellBack: boolean }> {
  try {
    return { result: await listen(preferred), fellBack: false };
  } catch (err) {
    if (preferred === 0 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    return { result: await listen(0), fellBack: true };
  }
}
