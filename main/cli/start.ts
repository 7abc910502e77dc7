// `npm start`: the desktop app when Electron can run here; otherwise (no display, no Electron binary)
// one line saying so, then the headless server with the web UI on the default data folder, printing the
// URL with a fresh key in its #token= fragment (the page keeps it and strips it from the address bar).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { defaultDataDir } from '../host/data-directory.js';
import { findElectronRuntime } from '../host/electron-runtime.js';
import { hostServer } from '../host/hosted-server.js';
import { configuredPort } from '../host/port.js';

// dist/main/cli/start.js -> the folder with package.json, whose "main" is the Electron entry.
const appRoot = fileURLToPath(new URL('../../../', import.meta.url));

async function runHeadless(): Promise<void> {
  const dataDir = defaultDataDir();
  const preferred = configuredPort();
  // The same code path as the desktop app's server process (main/host/server-process.ts).
  const server = await hostServer({ dataDir, port: preferred, owner: 'npm start web UI' });
  if (server.fellBack) console.log(`Port ${preferred} is taken; using ${server.port} instead.`);
  console.log(`Data folder: ${dataDir}`);
  console.log(`Shelf Audit web UI: ${server.url}/#token=${server.token}`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`error while stopping on ${signal}:`, err);
        process.exit(1);
      },
    );
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
