// Headless local service:
//   npm run serve -- --host 127.0.0.1 --port 8765 --data-dir DIR --api-key KEY
// a laptop that syncs: add --central URL --device-key KEY; the central instance (docs/sync.md):
//   npm run serve -- --role central --database postgres://USER@HOST:PORT/DB --data-dir DIR --api-key KEY
// prints `listening on http://HOST:PORT` once ready (--port 0 picks a free port) and closes cleanly
// on SIGINT/SIGTERM.
import { parseArgs } from 'node:util';
import { DEFAULT_HOST, defaultDataDir, serverSettings } from '../server/config.js';
import { startServer } from '../server/server.js';

const USAGE =
  'usage: serve [--host HOST] [--port PORT] [--data-dir DIR] [--api-key KEY] [--web-root DIR] [--log]\n' +
  '             [--role laptop|central] [--database postgres://...] [--central URL --device-key KEY]';

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
  const server = await startServer({
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
    sync: serverSettings().sync,
  });
  console.log(`listening on ${server.url}`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`error while stopping on ${signal}:`, error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(`serve: ${(error as Error).message ?? error}`);
  process.exit(1);
});
