// The server's own process: the desktop app runs the server here, in an Electron utilityProcess, so
// that recognition never stalls the main process's event loop (menus, dialogs, IPC). Plain Node: it
// talks to its parent over Electron's parentPort, or over the IPC channel of child_process.fork (the
// tests and the bench run it that way). Messages, parent -> child: start, model-version, stop; child ->
// parent: ready | failed, model-version, stopped.
import { hostServer, type HostedServer, type HostOptions } from './hosted-server.js';

export type ToServer = ({ type: 'start' } & HostOptions) | { type: 'model-version'; id: number } | { type: 'stop' };
export type FromServer =
  | { type: 'ready'; url: string; port: number; fellBack: boolean; token: string; pid: number }
  | { type: 'failed'; message: string }
  | { type: 'model-version'; id: number; version: string }
  | { type: 'stopped' };

export interface ParentChannel {
  post(message: FromServer): void;
  onMessage(listener: (message: ToServer) => void): void;
}

/** The channel to the parent: Electron's parentPort in a utilityProcess, else Node's fork IPC. */
export function parentChannel(proc: NodeJS.Process = process): ParentChannel | undefined {
  const port = (proc as NodeJS.Process & { parentPort?: { postMessage(m: unknown): void; on(e: 'message', l: (e: { data: unknown }) => void): void } }).parentPort;
  if (port) return { post: (m) => port.postMessage(m), onMessage: (l) => port.on('message', (e) => l(e.data as ToServer)) };
  if (proc.send) return { post: (m) => void proc.send!(m), onMessage: (l) => proc.on('message', (m) => l(m as ToServer)) };
  return undefined;
}

/** Serves the parent's requests until it says stop; `exit` ends the process once the server is closed. */
export function serveParent(channel: ParentChannel, exit: (code: number) => void, host: (o: HostOptions) => Promise<HostedServer> = hostServer): void {
  let server: Promise<HostedServer> | undefined;
  channel.onMessage((message) => {
    switch (message.type) {
      case 'start':
        server ??= host(message);
        server.then(
          (s) => channel.post({ type: 'ready', url: s.url, port: s.port, fellBack: s.fellBack, token: s.token, pid: process.pid }),
          (err: unknown) => {
            channel.post({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
            exit(1);
          },
        );
        return;
      case 'model-version':
        void (server ?? Promise.reject(new Error('not started')))
          .then((s) => s.modelVersion())
          .catch(() => 'unknown')
          .then((version) => channel.post({ type: 'model-version', id: message.id, version }));
        return;
      case 'stop':
        void (async () => {
          let code = 0;
          try {
            await (await server)?.stop();
          } catch {
            code = 1;
          }
          channel.post({ type: 'stopped' });
          exit(code);
        })();
        return;
    }
  });
}
