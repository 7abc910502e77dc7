// The server's configuration and its defaults, in one place: read once when the server starts
// (buildApp) and handed down as one typed object, `app.serverConfig`; no module reads the environment
// at the point of use.
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultDataDir as desktopDataDir } from '../../host/data-directory.js';

export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string;
  /** Directory of the built web UI, served at `/`; null when there is none. */
  webRoot: string | null;
  logger: boolean;
  /** 'central': the instance laptops sync into (no sync engine of its own). Default 'laptop'. */
  role?: 'laptop' | 'central';
  /** The SHELF_AUDIT_* settings; default: read from the environment when the server starts. */
  settings?: ServerSettings;
  /**
   * Requests sent through the request path before listening (server.ts); default 0: then the
   * warm-up sends them after listening, until a client's first API request (app.ts).
   */
  warmUpBeforeListen?: number;
}

/** The configuration the running server holds: every setting resolved. */
export type AppConfig = Required<ServerConfig>;

export function resolveConfig(config: ServerConfig, env: NodeJS.ProcessEnv = process.env): AppConfig {
  return { ...config, role: config.role ?? 'laptop', settings: config.settings ?? serverSettings(env), warmUpBeforeListen: config.warmUpBeforeListen ?? 0 };
}

/** The repository (or packaged app) root: main/server/config/config.ts sits 2 levels below it, dist/main/server/config/config.js 3. */
const appRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', ...(import.meta.url.includes('/dist/') ? ['..'] : []));

export function defaultWebRoot(): string | null {
  const dir = path.join(appRoot, 'dist', 'renderer');
  return existsSync(path.join(dir, 'index.html')) ? dir : null;
}

/**
 * SHELF_AUDIT_DATA_DIR, else the folder the desktop app uses (Electron's userData for "Shelf Audit"),
 * so `npm run serve` / `npm run cli` without --data-dir work on the same data as `npm start`.
 */
export function defaultDataDir(): string {
  return desktopDataDir();
}

export const DEFAULT_HOST = '127.0.0.1';

/**
 * The server's SHELF_AUDIT_* settings, read here and nowhere else, with their defaults. Read when
 * asked (not at import), so a process sets them before it starts the server. The host's own
 * (SHELF_AUDIT_DATA_DIR, _PORT, _HEADLESS) live in main/host/, which the desktop shell reads without
 * the server.
 */
export interface ServerSettings {
  /** SHELF_AUDIT_RECOGNITION_CONCURRENCY: recognition jobs run at once (default 1). */
  recognitionConcurrency: number;
  /** SHELF_AUDIT_JOB_LEASE_MS: how long a job's lease lasts before another worker may take it over. */
  jobLeaseMs: number | undefined;
  /** SHELF_AUDIT_WEBHOOK_BACKOFF_MS: first retry delay of a failed webhook delivery (default 5000). */
  webhookBackoffMs: number;
  /** SHELF_AUDIT_IDENTIFY_THREADS: worker threads for identification (default 0: in process). */
  identifyThreads: number;
  /** SHELF_AUDIT_EMBED_THREADS: onnxruntime threads of the product embedder (default 2). */
  embedThreads: number;
  /**
   * SHELF_AUDIT_DETECTOR_THREADS: onnxruntime threads of the shelf detector. Default 2, but 1 on a
   * 2-core machine: there a second thread cost ~25 % more CPU for no faster detection under load,
   * and left no core for the server's main thread (bench/recognition-load.bench.mjs).
   */
  detectorThreads: number;
  /**
   * SHELF_AUDIT_ANALYSIS_NICE: the nice value (0-19) of the recognition analysis thread on Linux
   * (default 10; 0: normal priority), so that HTTP requests get a core first (analyzer/thread-priority.ts).
   */
  analysisNice: number;
  /**
   * SHELF_AUDIT_ALLOW_PRIVATE_URLS=1: upload_by_url and webhooks may reach loopback, private and
   * link-local addresses. Off by default; a laptop's webhooks reach loopback without it, for a local
   * integration on the same laptop (http/outgoing.ts, scenes/plugin.ts).
   */
  allowPrivateUrls: boolean;
  /** SHELF_AUDIT_SYNC_INTERVAL_MS, _BACKOFF_MS, _MAX_BACKOFF_MS: the laptop's sync timing (sync/engine.ts defaults). */
  sync: { intervalMs?: number; backoffMs?: number; maxBackoffMs?: number };
  /** SHELF_AUDIT_SYNC_PULL_PAGE: changes per pull page on the central (default 2000). */
  syncPullPage: number;
  /**
   * SHELF_AUDIT_READ_PRICES=0: recognition never looks for price tags (default on: the analysis of a
   * scene asking for a price report carries its photos' tags, read and linked; seconds more per photo).
   */
  readPrices: boolean;
  /** SHELF_DETECTOR_MODEL: a detector file to use instead of the shipped one (an installed model still comes first). */
  detectorModel: string | null;
  /** SHELF_EMBEDDER_MODEL: a product-embedder file to use instead of the shipped one (e.g. one finetune.py wrote). */
  embedderModel: string | null;
  /**
   * The central's S3-compatible bucket for photos, models and tus uploads (docs/sync.md, "Scaling out"):
   * SHELF_AUDIT_S3_BUCKET turns it on; _S3_ENDPOINT (an S3-compatible server's URL; default AWS),
   * _S3_REGION (default us-east-1), _S3_PATH_STYLE (default 1 with an endpoint, 0 without),
   * _S3_TIMEOUT_MS (default 10000). Credentials: the AWS SDK's chain (AWS_ACCESS_KEY_ID and
   * AWS_SECRET_ACCESS_KEY, or AWS_SHARED_CREDENTIALS_FILE). Null: files under the data directory.
   */
  objectStore: ObjectStoreSettings | null;
  /**
   * SHELF_AUDIT_WARM_UP_BEFORE_LISTEN: requests the server sends itself through the request path
   * (pages and records of the lists, `app.inject`) before it listens, for V8 to compile that path
   * first (docs/api.md, issue 40's sixth pass). Null when not set: then the entry decides, `npm run
   * serve` SERVE_WARM_UP_BEFORE_LISTEN, the desktop app's server 0 (it warms after listening instead,
   * so the window does not open later). 0 turns it off.
   */
  warmUpBeforeListen: number | null;
}

/**
 * The headless server's warm-up before listening (`npm run serve`: the local service, the central):
 * a slower start costs nobody a screen there, and a load arriving the moment it listens then meets
 * code V8 has compiled. The fewest requests that gave the cold row its gain (docs/api.md, sixth pass).
 */
export const SERVE_WARM_UP_BEFORE_LISTEN = 4_000;

/** The central's bucket (storage/object-store.ts). */
export interface ObjectStoreSettings {
  bucket: string;
  /** An S3-compatible server's URL; null: AWS's own endpoint for the region. */
  endpoint: string | null;
  region: string;
  /** Bucket in the path (`http://host/bucket/key`), as most S3-compatible servers want. */
  pathStyle: boolean;
  /** How long one request to the bucket may take before it counts as unreachable (ms). */
  timeoutMs: number;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return undefined;
  if (['1', 'true', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'no'].includes(raw)) return false;
  throw new Error(`${name} must be 1 or 0, not "${env[name]}".`);
}

export function objectStoreSettings(env: NodeJS.ProcessEnv = process.env): ObjectStoreSettings | null {
  const bucket = (env.SHELF_AUDIT_S3_BUCKET ?? '').trim();
  if (!bucket) return null;
  const endpoint = (env.SHELF_AUDIT_S3_ENDPOINT ?? '').trim() || null;
  if (endpoint && !/^https?:\/\//.test(endpoint)) throw new Error(`SHELF_AUDIT_S3_ENDPOINT must be an http(s):// URL, not "${endpoint}".`);
  return {
    bucket,
    endpoint,
    region: (env.SHELF_AUDIT_S3_REGION ?? '').trim() || 'us-east-1',
    pathStyle: flag(env, 'SHELF_AUDIT_S3_PATH_STYLE') ?? endpoint !== null,
    timeoutMs: Math.max(100, numberSetting(env, 'SHELF_AUDIT_S3_TIMEOUT_MS') ?? 10_000),
  };
}

function numberSetting(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number of at least 0, not "${raw}".`);
  return value;
}

export function serverSettings(env: NodeJS.ProcessEnv = process.env): ServerSettings {
  return {
    recognitionConcurrency: numberSetting(env, 'SHELF_AUDIT_RECOGNITION_CONCURRENCY') ?? 1,
    jobLeaseMs: numberSetting(env, 'SHELF_AUDIT_JOB_LEASE_MS'),
    webhookBackoffMs: numberSetting(env, 'SHELF_AUDIT_WEBHOOK_BACKOFF_MS') ?? 5_000,
    identifyThreads: numberSetting(env, 'SHELF_AUDIT_IDENTIFY_THREADS') ?? 0,
    embedThreads: numberSetting(env, 'SHELF_AUDIT_EMBED_THREADS') ?? 2,
    detectorThreads: Math.max(1, numberSetting(env, 'SHELF_AUDIT_DETECTOR_THREADS') ?? Math.min(2, os.availableParallelism() - 1)),
    analysisNice: Math.min(19, numberSetting(env, 'SHELF_AUDIT_ANALYSIS_NICE') ?? 10),
    allowPrivateUrls: ['1', 'true', 'yes'].includes((env.SHELF_AUDIT_ALLOW_PRIVATE_URLS ?? '').trim().toLowerCase()),
    sync: {
      intervalMs: numberSetting(env, 'SHELF_AUDIT_SYNC_INTERVAL_MS') || undefined,
      backoffMs: numberSetting(env, 'SHELF_AUDIT_SYNC_BACKOFF_MS') || undefined,
      maxBackoffMs: numberSetting(env, 'SHELF_AUDIT_SYNC_MAX_BACKOFF_MS') || undefined,
    },
    syncPullPage: Math.max(1, numberSetting(env, 'SHELF_AUDIT_SYNC_PULL_PAGE') ?? 2_000),
    readPrices: flag(env, 'SHELF_AUDIT_READ_PRICES') ?? true,
    detectorModel: env.SHELF_DETECTOR_MODEL || null,
    embedderModel: env.SHELF_EMBEDDER_MODEL || null,
    objectStore: objectStoreSettings(env),
    warmUpBeforeListen: numberSetting(env, 'SHELF_AUDIT_WARM_UP_BEFORE_LISTEN') ?? null,
  };
}
