// The server as the apps host it: on the data folder (migrated), on 127.0.0.1 at the configured port
// (a free one when it is taken), with a session key for the UI. One code path for the headless
// `npm start` and for the desktop app's server process (server-process.ts), so both start, serve and
// stop alike. Stopping revokes the key, then closes the server (jobs reach a safe point, the database
// closes).
import { migrateDataDir } from './data-layout.js';
import { listenOnPreferredPort } from './port.js';
import { issueSessionKey, type SessionOwner } from './session-key.js';
import { startServer } from '../server/server.js';

export interface HostOptions {
  dataDir: string;
  /** The preferred port (0: any free one). */
  port: number;
  owner: SessionOwner;
}

export interface HostedServer {
  url: string;
  port: number;
  /** True when the preferred port was taken and another was used. */
  fellBack: boolean;
  /** The UI's session key. */
  token: string;
  /**
   * Requests the server sent itself before it listened: 0, as the app's window waits for it to
   * listen (it warms after listening instead: server/app.ts); SHELF_AUDIT_WARM_UP_BEFORE_LISTEN may say otherwise.
   */
  warmedUpBeforeListen?: number;
  /** The detection model's version (for the About box), or "unknown". */
  modelVersion(): Promise<string>;
  stop(): Promise<void>;
}

export async function hostServer(o: HostOptions): Promise<HostedServer> {
  await migrateDataDir(o.dataDir);
  const { result: server, fellBack } = await listenOnPreferredPort(o.port, (port) => startServer({ host: '127.0.0.1', port, dataDir: o.dataDir }));
  let key;
  try {
    key = await issueSessionKey(server.app.db, o.owner);
  } catch (err) {
    await server.close();
    throw err;
  }
  const token = key.token;
  let stopped: Promise<void> | undefined;
  return {
    url: server.url,
    port: server.port,
    fellBack,
    token,
    warmedUpBeforeListen: server.warmedUpBeforeListen?.sent ?? 0,
    modelVersion: () => modelVersionFromServer(server.app, token),
    stop() {
      stopped ??= (async () => {
        try {
          await key.revoke();
        } finally {
          await server.close();
        }
      })();
      return stopped;
    },
  };
}

/** Asks the server's info endpoint (in process, no socket) which detection model it runs. */
export async function modelVersionFromServer(
  app: { inject(options: { method: 'GET'; url: string; headers: Record<string, string> }): PromiseLike<{ statusCode: number; body: string }> },
  token: string,
): Promise<string> {
  try {
    const res = await app.inject({ method: 'GET', url: '/api/app/v1/info/', headers: { authorization: `Token ${token}` } });
    if (res.statusCode !== 200) return 'unknown';
    const version = (JSON.parse(res.body) as { model_version?: unknown }).model_version;
    return typeof version === 'string' && version ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}
