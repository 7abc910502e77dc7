// startServer(): opens the data directory's database, registers the API key given on the command
// line, and listens. close() stops accepting requests, lets in-flight work finish (Fastify's onClose
// hooks, where the recognition worker reaches a safe point) and then closes the database.
import type { FastifyInstance } from 'fastify';
import path from 'node:path';
import { buildApp } from './app.js';
import { DEFAULT_HOST, defaultWebRoot, serverSettings, type ServerConfig, type ServerSettings } from './config/config.js';
import type { WarmedUpBeforeListen } from './http/warm-up.js';
import { ensureApiKey } from './domain/api-keys.js';
import { openDatabase, openDatabaseTarget, type OpenDatabase } from './storage/database.js';
import type { EngineOptions } from './sync/engine.js';
import { saveSettings } from './sync/device-store.js';
import { write } from './storage/transaction.js';

export interface ServerOptions {
  host?: string;
  port?: number;
  dataDir: string;
  apiKey?: string;
  webRoot?: string;
  logger?: boolean;
  /** 'central': the instance laptops sync into (docs/sync.md). */
  role?: 'laptop' | 'central';
  /** A PostgreSQL connection string; default: SQLite in the data directory. */
  database?: string;
  /** The central this laptop syncs with, and its device key (stored in the database's sync settings). */
  central?: string;
  deviceKey?: string;
  sync?: EngineOptions;
  /** The SHELF_AUDIT_* settings; default: read from the environment once, as the server starts. */
  settings?: ServerSettings;
  /**
   * Requests the server sends itself through the request path before it listens, unless
   * SHELF_AUDIT_WARM_UP_BEFORE_LISTEN says otherwise; default 0 (the desktop app's server: it warms
   * after listening, so the window opens no later). `serve` passes SERVE_WARM_UP_BEFORE_LISTEN.
   */
  warmUpBeforeListen?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  app: FastifyInstance;
  /** The warm-up sent before listening (its requests, time and CPU); null when none was asked. */
  warmedUpBeforeListen: WarmedUpBeforeListen | null;
  close(): Promise<void>;
}

async function openFor(options: ServerOptions, dataDir: string) {
  return options.database ? openDatabaseTarget({ kind: 'postgres', connectionString: options.database }) : openDatabase(dataDir);
}

/** Writes what the command line asks into the database: the API key, the central and device key. */
async function applyOptions(db: OpenDatabase['db'], options: ServerOptions): Promise<void> {
  if (options.apiKey) {
    const key = options.apiKey;
    await write(db, (ctx) => ensureApiKey(ctx, key, 'serve --api-key'));
  }
  if (options.central !== undefined || options.deviceKey !== undefined) {
    await saveSettings(db, { central_url: options.central, device_key: options.deviceKey });
  }
}

/**
 * Migrates the database and applies the command line's settings once, before several server
 * processes start on it (`serve --workers N`): they would otherwise race to migrate and register.
 */
export async function prepareDatabase(options: ServerOptions): Promise<void> {
  const database = await openFor(options, path.resolve(options.dataDir));
  try {
    await applyOptions(database.db, options);
  } finally {
    await database.close();
  }
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const settings = options.settings ?? serverSettings();
  const config: ServerConfig = {
    host: options.host ?? DEFAULT_HOST,
    port: options.port ?? 0,
    dataDir: path.resolve(options.dataDir),
    webRoot: options.webRoot ? path.resolve(options.webRoot) : defaultWebRoot(),
    logger: options.logger ?? false,
    role: options.role ?? 'laptop',
    // Read here (buildApp would read them too) for the warm-up before listening.
    settings,
    warmUpBeforeListen: settings.warmUpBeforeListen ?? options.warmUpBeforeListen ?? 0,
  };
  const database = await openFor(options, config.dataDir);
  let app: FastifyInstance | undefined;
  let warmedUpBeforeListen: WarmedUpBeforeListen | null = null;
  try {
    await applyOptions(database.db, options);
    app = await buildApp({ db: database.db, readDb: database.readDb, config, changeStamp: database.changeStamp, keyStamp: database.keyStamp, tableStamp: database.tableStamp, stampSet: database.stampSet, sync: options.sync });
    if (config.warmUpBeforeListen) warmedUpBeforeListen = await app.warmUpBeforeListen(config.warmUpBeforeListen);
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app?.close();
    await database.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  const running = app;
  return {
    url: `http://${host}:${port}`,
    port,
    app: running,
    warmedUpBeforeListen,
    close() {
      closing ??= (async () => {
        await running.close();
        await database.close();
      })();
      return closing;
    },
  };
}
