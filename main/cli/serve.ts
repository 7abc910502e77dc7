// Headless local service:
//   npm run serve -- --host 127.0.0.1 --port 8765 --data-dir DIR --api-key KEY
// a laptop that syncs: add --central URL --device-key KEY; the central instance (docs/sync.md):
//   npm run serve -- --role central --database postgres://USER@HOST:PORT/DB --data-dir DIR --api-key KEY
// prints `listening on http://HOST:PORT` once ready (--port 0 picks a free port) and closes cleanly
// on SIGINT/SIGTERM. `--workers N` runs N server processes on the one port (node:cluster) over the
// one database, to use more than one core: recognition jobs are still leased once (jobs/queue.ts).
import cluster, { type Worker } from 'node:cluster';
import { parseArgs } from 'node:util';
import { DEFAULT_HOST, defaultDataDir, SERVE_WARM_UP_BEFORE_LISTEN, serverSettings } from '../server/config/config.js';
import { prepareDatabase, startServer, type ServerOptions } from '../server/server.js';

const USAGE =
  'usage: serve [--host HOST] [--port PORT] [--data-dir DIR] [--api-key KEY] [--web-root DIR] [--log]\n' +
  '             [--role laptop|central] [--database postgres://...] [--central URL --device-key KEY] [--workers N]';

/** What a server process tells the primary (`--workers`): its address once it listens. */
interface ListeningMessage {
  listening: string;
}

/** The environment variable that tells a forked process its number (1..N); the first one syncs. */
const WORKER_INDEX = 'SHELF_AUDIT_SERVE_WORKER';

function exitOnSignals(stop: (signal: string) => void): void {
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** One server in this process; `announce` says where it listens. */
async function serveHere(options: ServerOptions, announce: (url: string) => void): Promise<void> {
  const server = await startServer(options);
  const warm = server.warmedUpBeforeListen;
  // What the start spent on it, for whoever times the start (the bench, an operator).
  if (warm) console.log(`warmed up before listening: ${warm.sent} requests in ${warm.ms.toFixed(0)} ms (CPU ${warm.cpuMs.toFixed(0)} ms)`);
  announce(server.url);
  let stopping = false;
  exitOnSignals((signal) => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`error while stopping on ${signal}:`, error);
        process.exit(1);
      },
    );
  });
}

/**
 * The primary of `--workers N`: prepares the database once, forks N server processes that share the
 * listening socket, prints the address once all listen, replaces a process that dies, and on
 * SIGINT/SIGTERM stops them all (each closes cleanly) before exiting.
 */
async function servePrimary(options: ServerOptions, workers: number): Promise<void> {
  await prepareDatabase(options);
  let stopping = false;
  let failed = false;
  const listening = new Set<Worker>();
  const fork = (index: number) => {
    const worker = cluster.fork({ [WORKER_INDEX]: String(index) });
    worker.on('message', (message: ListeningMessage) => {
      if (typeof message?.listening !== 'string' || listening.has(worker)) return;
      listening.add(worker);
      if (listening.size === workers) console.log(`listening on ${message.listening}`);
    });
    worker.on('exit', (code, signal) => {
      const started = listening.delete(worker);
      if (stopping) {
        // A process stopped by our own SIGTERM before it installed its handler (a replacement still
        // starting) exits by the signal: that is the stop asked for, not a failure.
        if (code !== 0 && !(code === null && signal === 'SIGTERM')) failed = true;
        if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(failed ? 1 : 0);
        return;
      }
      if (!started) {
        // A process that cannot even start (bad database, port taken) will not start on a retry.
        console.error(`serve: server process ${index} exited (${signal ?? code}) before listening`);
        stopping = true;
        for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
        process.exitCode = 1;
        if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(1);
        return;
      }
      console.error(`serve: server process ${index} exited (${signal ?? code}); starting another`);
      fork(index);
    });
  };
  for (let i = 1; i <= workers; i++) fork(i);
  exitOnSignals(() => {
    if (stopping) return;
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  });
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        host: { type: 'string', default: DEFAULT_HOST },
        port: { type: 'string', default: '8765' },
        'data-dir': { type: 'string' },
        'api-key': { type: 'string' },
        'web-root': { type: 'string' },
        log: { type: 'boolean', default: false },
        role: { type: 'string', default: 'laptop' },
        database: { type: 'string' },
        central: { type: 'string' },
        'device-key': { type: 'string' },
        workers: { type: 'string', default: '1' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`invalid --port ${values.port}\n${USAGE}`);
    process.exit(2);
  }
  const role = values.role;
  if (role !== 'laptop' && role !== 'central') {
    console.error(`invalid --role ${role}\n${USAGE}`);
    process.exit(2);
  }
  if (values.database !== undefined && !/^postgres(ql)?:\/\//.test(values.database)) {
    console.error(`--database takes a postgres:// connection string\n${USAGE}`);
    process.exit(2);
  }
  if (role === 'central' && (values.central || values['device-key'])) {
    console.error(`the central does not take --central or --device-key\n${USAGE}`);
    process.exit(2);
  }
  const workers = Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64) {
    console.error(`invalid --workers ${values.workers} (1 to 64)\n${USAGE}`);
    process.exit(2);
  }
  // Read once here and handed to the server (and to every forked server process through the same code).
  const settings = serverSettings();
  const options: ServerOptions = {
    host: values.host,
    port,
    dataDir: values['data-dir'] ?? defaultDataDir(),
    apiKey: values['api-key'],
    webRoot: values['web-root'],
    logger: values.log,
    role,
    database: values.database,
    central: values.central,
    deviceKey: values['device-key'],
    sync: settings.sync,
    settings,
    // A slower start costs nobody a screen here, and the load may arrive the moment it listens.
    warmUpBeforeListen: SERVE_WARM_UP_BEFORE_LISTEN,
  };
  if (workers === 1) return serveHere(options, (url) => console.log(`listening on ${url}`));
  if (cluster.isPrimary) return servePrimary(options, workers);
  // A forked server process: the primary has migrated and registered; only the first one syncs.
  const index = Number(process.env[WORKER_INDEX]);
  return serveHere(
    { ...options, apiKey: undefined, central: undefined, deviceKey: undefined, sync: { ...options.sync, run: index === 1 } },
    (url) => process.send?.({ listening: url } satisfies ListeningMessage),
  );
}

main().catch((error: unknown) => {
  console.error(`serve: ${(error as Error).message ?? error}`);
  process.exit(1);
});
