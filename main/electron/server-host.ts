// The main process's side of the server process (main/host/server-process.ts): forks it (an Electron
// utilityProcess in the app; anything with the same small API in tests and the bench), waits for it to
// listen, answers for it (model version, stop), and restarts it when it crashes, on the same port so
// the page's origin (and its offline store) stays the same. The main process itself then only hosts
// windows, menus and the bridge: recognition can no longer stall its event loop.
import type { FromServer, ToServer } from '../host/server-process.js';

/** What the lifecycle needs of a forked process (Electron's UtilityProcess has it). */
export interface ServerChild {
  postMessage(message: ToServer): void;
  on(event: 'message', listener: (message: FromServer) => void): void;
  on(event: 'exit', listener: (code: number) => void): void;
  kill(): boolean;
}

export interface ServerHostOptions {
  fork(): ServerChild;
  dataDir: string;
  port: number;
  log: { info(...a: unknown[]): void; warn(...a: unknown[]): void; error(...a: unknown[]): void };
  /** Crashes tolerated within `restartWindowMs` before giving up (default 3 in 60 s). */
  maxRestarts?: number;
  restartWindowMs?: number;
  /** How long a start may take (default 60 s) and a stop (default 30 s) before the process is killed. */
  startTimeoutMs?: number;
  stopTimeoutMs?: number;
}

export interface ServerAddress {
  url: string;
  port: number;
  token: string;
}

export interface ServerProcess extends ServerAddress {
  fellBack: boolean;
  modelVersion(): Promise<string>;
  /** Stops the server (key revoked, jobs at a safe point, database closed) and waits for the process to end. */
  close(): Promise<void>;
  /** After a crash: the restarted server's address and new session key. */
  onRestart(listener: (address: ServerAddress) => void): void;
  /** The server kept crashing and is not restarted again. */
  onGiveUp(listener: (error: Error) => void): void;
}

interface Running {
  child: ServerChild;
  ready: Extract<FromServer, { type: 'ready' }>;
  exited: Promise<number>;
}

function launch(o: ServerHostOptions, port: number): Promise<Running> {
  const child = o.fork();
  let exitCode: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => (exitCode = resolve));
  child.on('exit', (code) => exitCode(code));
  return new Promise<Running>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`the server did not start within ${(o.startTimeoutMs ?? 60_000) / 1000} s`));
    }, o.startTimeoutMs ?? 60_000);
    child.on('message', (m) => {
      if (m.type === 'ready') {
        clearTimeout(timer);
        resolve({ child, ready: m, exited });
      } else if (m.type === 'failed') {
        clearTimeout(timer);
        reject(new Error(m.message));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server process ended (code ${code}) before it listened`));
    });
    child.postMessage({ type: 'start', dataDir: o.dataDir, port, owner: 'desktop app' });
  });
}

export async function startServerProcess(o: ServerHostOptions): Promise<ServerProcess> {
  let running = await launch(o, o.port);
  let closing = false;
  const restarts: number[] = [];
  const restartListeners: Array<(a: ServerAddress) => void> = [];
  const giveUpListeners: Array<(e: Error) => void> = [];
  let nextId = 1;
  const pending = new Map<number, (version: string) => void>();

  const handle: ServerProcess = {
    url: running.ready.url,
    port: running.ready.port,
    token: running.ready.token,
    fellBack: running.ready.fellBack,
    modelVersion() {
      const id = nextId++;
      return new Promise<string>((resolve) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          resolve('unknown');
        }, 5_000);
        pending.set(id, (version) => {
          clearTimeout(timer);
          resolve(version);
        });
        running.child.postMessage({ type: 'model-version', id });
      });
    },
    async close() {
      closing = true;
      const { child, exited } = running;
      child.postMessage({ type: 'stop' });
      const timer = setTimeout(() => {
        o.log.error('The server did not stop in time; ending its process');
        child.kill();
      }, o.stopTimeoutMs ?? 30_000);
      await exited;
      clearTimeout(timer);
    },
    onRestart: (listener) => void restartListeners.push(listener),
    onGiveUp: (listener) => void giveUpListeners.push(listener),
  };

  const watch = (r: Running) => {
    r.child.on('message', (m) => {
      if (m.type === 'model-version') pending.get(m.id)?.(m.version);
    });
    void r.exited.then(async (code) => {
      if (closing) return;
      const now = Date.now();
      const window = o.restartWindowMs ?? 60_000;
      while (restarts.length > 0 && restarts[0] < now - window) restarts.shift();
      if (restarts.length >= (o.maxRestarts ?? 3)) {
        const error = new Error(`the server process keeps ending (code ${code}); not restarting it again`);
        o.log.error(error.message);
        for (const l of giveUpListeners) l(error);
        return;
      }
      restarts.push(now);
      o.log.warn(`The server process ended (code ${code}); restarting it`);
      try {
        // The same port: the page's origin, and so its offline store, stays the same.
        running = await launch(o, handle.port);
      } catch (err) {
        const error = err instanceof Error ? err : new Error(String(err));
        o.log.error('The server could not be restarted', error);
        for (const l of giveUpListeners) l(error);
        return;
      }
      Object.assign(handle, { url: running.ready.url, port: running.ready.port, token: running.ready.token });
      watch(running);
      for (const l of restartListeners) l({ url: handle.url, port: handle.port, token: handle.token });
    });
  };
  watch(running);
  return handle;
}
