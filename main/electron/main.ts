// Electron's entry point (package.json "main"): the server runs in its own process (a utilityProcess,
// main/cli/server-process.ts), so recognition never stalls this process's event loop; this process
// hosts the windows, menus and the bridge. Everything with logic lives in the modules it imports.
import { utilityProcess } from 'electron';
import log from 'electron-log/main';
import { fileURLToPath } from 'node:url';
import { runDesktopApp } from './lifecycle.js';
import { SERVER_NODE_FLAGS } from '../host/v8-heap.js';
import { startServerProcess, type ServerChild, type ServerProcess } from './server-host.js';

// dist/main/electron/main.js -> dist/main/cli/server-process.js
const serverEntry = fileURLToPath(new URL('../cli/server-process.js', import.meta.url));

void runDesktopApp<ServerProcess>({
  startServer: (options) =>
    startServerProcess({
      fork: (): ServerChild => utilityProcess.fork(serverEntry, [], { serviceName: 'Shelf Audit server', stdio: 'inherit', execArgv: [...SERVER_NODE_FLAGS] }),
      dataDir: options.dataDir,
      port: options.port,
      log,
    }),
  // The server process issues the window's key and revokes it when it stops.
  issueSessionKey: async (server) => ({ token: server.token, revoke: async () => {} }),
  modelVersion: (server) => server.modelVersion(),
  // dist/main/electron/main.js -> dist/preload/index.js (CommonJS, as a sandboxed preload must be).
  preloadPath: fileURLToPath(new URL('../../preload/index.js', import.meta.url)),
  // The web UI (dist/renderer) is found by the server itself, in the checkout and inside app.asar.
});
