// `npm start`: the desktop app when Electron can run here; otherwise (no display, no Electron binary)
// one line saying so, then the headless server with the web UI on the default data folder, printing the
// URL with a fresh key in its #token= fragment (the page keeps it and strips it from the address bar).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { defaultDataDir } from '../host/data-directory.js';
import { migrateDataDir } from '../host/data-layout.js';
import { findElectronRuntime } from '../host/electron-runtime.js';
import { configuredPort, listenOnPreferredPort } from '../host/port.js';
import { issueSessionKey } from '../host/session-key.js';
import { startServer } from '../server/server.js';

// dist/main/cli/start.js -> the folder with package.json, whose "main" is the Electron entry.
const appRoot = fileURLToPath(new URL('../../../', import.meta.url));

async function runHeadless(): Promise<void> {
  const dataDir = defaultDataDir();
  await migrateDataDir(dataDir);
  const preferred = configuredPort();
  const { result: server, fellBack } = await listenOnPreferredPort(preferred, (port) =>
    startServer({ host: '127.0.0.1', port, dataDir }),
  );
  const key = await issueSessionKey(server.app.db, 'npm start web UI');
  if (fellBack) console.log(`Port ${preferred} is taken; using ${server.port} instead.`);
  console.log(`Data folder: ${dataDir}`);
  console.log(`Shelf Audit web UI: ${server.url}/#token=${key.token}`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      let code = 0;
      try {
        await key.revoke();
      } catch (err) {
        console.error('could not revoke the web UI key:', err);
        code = 1;
      }
      try {
        await server.close();
      } catch (err) {
        console.error(`error while stopping on ${signal}:`, err);
        code = 1;
      }
      process.exit(code);
    })();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

function runElectron(binary: string): void {
  const child = spawn(binary, [appRoot], { stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('error', (err) => {
    process.off('SIGINT', forward);
    process.off('SIGTERM', forward);
    console.log(`Electron could not start (${err.message}): running the headless server with the web UI instead.`);
    runHeadless().catch(fail);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

function fail(err: unknown): never {
  console.error('Shelf Audit could not start:', err instanceof Error ? err.message : err);
  process.exit(1);
}

const runtime = findElectronRuntime();
if (runtime.available) {
  runElectron(runtime.binary);
} else {
  console.log(`Electron cannot start here (${runtime.reason}): running the headless server with the web UI instead.`);
  runHeadless().catch(fail);
}
