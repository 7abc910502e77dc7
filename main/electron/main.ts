// Electron's entry point (package.json "main"): wires the real server and key domain into the
// lifecycle. Everything with logic lives in the modules it imports.
import { fileURLToPath } from 'node:url';
import { issueSessionKey } from '../host/session-key.js';
import { startServer } from '../server/server.js';
import { modelVersionFromServer } from './about.js';
import { runDesktopApp } from './lifecycle.js';

void runDesktopApp({
  startServer: (options) => startServer(options),
  issueSessionKey: (server) => issueSessionKey(server.app.db, 'desktop app'),
  modelVersion: (server, token) => modelVersionFromServer(server.app, token),
  // dist/main/electron/main.js -> dist/preload/index.js (CommonJS, as a sandboxed preload must be).
  preloadPath: fileURLToPath(new URL('../../preload/index.js', import.meta.url)),
  // The web UI (dist/renderer) is found by the server itself, in the checkout and inside app.asar.
});
