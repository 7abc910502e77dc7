// Real processes for the sync tests: a throw-away PostgreSQL cluster (scripts/pg-cluster.mjs),
// server processes from the build (`node dist/main/cli/serve.js`), a fault-injecting HTTP proxy, and
// per-table digests read straight from each side's database.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { SYNC_ENTITIES } from '../../main/server/storage/sync-registry.js';
import { listeningUrl } from '../serve-listening.js';

const root = path.resolve(import.meta.dirname, '../..');
export { PG_BIN, PgCluster } from '../../scripts/pg-cluster.mjs';
export { freePort } from '../../scripts/free-port.mjs';

export const ADMIN_KEY = 'sync-admin-key';

/** A deterministic generator (mulberry32) so a failing run can be replayed from its seed. */
export { seededRandom as rng } from '../../scripts/seeded-random.mjs';

export interface ServerProcess {
  url: string;
  port: number;
  child: ChildProcess;
  output: () => string;
}

export async function startServe(args: string[], env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [path.join(root, 'dist/main/cli/serve.js'), '--host', '127.0.0.1', '--api-key', ADMIN_KEY, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SHELF_AUDIT_SYNC_INTERVAL_MS: '400', SHELF_AUDIT_SYNC_BACKOFF_MS: '150', SHELF_AUDIT_SYNC_MAX_BACKOFF_MS: '1500', ...env },
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const url = await listeningUrl(child);
  return { url, port: Number(new URL(url).port), child, output: () => out };
}

export async function stopServe(p: ServerProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((resolve) => p.child.once('exit', resolve));
  p.child.kill(signal);
  await exited;
}

export async function api(base: string, method: string, p: string, body?: unknown, key = ADMIN_KEY): Promise<{ status: number; body: any }> {
  const res = await fetch(base + p, {
    method,
    headers: { authorization: `Token ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/**
 * Every synced table, from the sync registry (storage/sync-registry.ts: a table added there is compared here too): the
 * device-owned ones (pushed up: the central holds the union of the laptops' rows) and the central-owned
 * master data (pulled down: every laptop holds the central's rows), each with the columns that each
 * instance computes for itself and so never sync.
 */
const localColumns = (e: (typeof SYNC_ENTITIES)[number]): readonly string[] => ('localColumns' in e ? e.localColumns : []);
export const DEVICE_TABLES = SYNC_ENTITIES.filter((e) => e.owner === 'device').map((e) => ({ table: e.table as string, local: localColumns(e) }));
export const CENTRAL_TABLES = SYNC_ENTITIES.filter((e) => e.owner === 'central').map((e) => ({ table: e.table as string, local: localColumns(e) }));

type Rows = Map<string, string>;

function canonical(row: Record<string, unknown>, local: readonly string[]): string {
  const rest = Object.fromEntries(Object.entries(row).filter(([k]) => k !== 'data_id' && !local.includes(k)));
  return JSON.stringify(Object.keys(rest).sort().map((k) => [k, rest[k] === undefined ? null : rest[k]]));
}

/** A table's rows by id; `local`: columns left out (computed by each instance). */
export function sqliteRows(dataDir: string, table: string, local: readonly string[] = []): Rows {
  const db = new Database(path.join(dataDir, 'shelf-audit.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return new Map((db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[]).map((r) => [String(r.id), canonical(r, local)]));
  } finally {
    db.close();
  }
}

export async function pgRows(url: string, table: string, local: readonly string[] = []): Promise<Rows> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query(`SELECT * FROM ${table}`);
    return new Map(r.rows.map((row) => [String(row.id), canonical(row, local)]));
  } finally {
    await client.end();
  }
}

export function digest(rows: Rows): string {
  const h = createHash('sha256');
  for (const k of [...rows.keys()].sort()) h.update(k + '\n' + rows.get(k)! + '\n');
  return h.digest('hex');
}

/** A proxy on a loopback port in front of `target`; subclasses decide what each request meets. */
abstract class LoopbackProxy {
  private readonly server: http.Server;
  port = 0;
  /** Where requests go; a test may re-point it (a load balancer that sends the next request elsewhere). */
  constructor(public target: string) {
    this.server = http.createServer((req, res) => this.handle(req, res));
  }
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return `http://127.0.0.1:${this.port}`;
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
  protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse): void;
}

/**
 * An HTTP proxy that, at random (seeded), drops a request before forwarding it, resets the
 * connection in the middle of the request body, or forwards the request and then loses the answer
 * after the central has committed. Everything else passes through.
 */
export class FaultProxy extends LoopbackProxy {
  readonly counts = { passed: 0, dropped: 0, resetMidBody: 0, lostAnswer: 0 };
  faultRate = 0.35;
  private readonly forced = ['lose', 'drop', 'reset'];
  constructor(
    target: string,
    private readonly random: () => number,
  ) {
    super(target);
  }
  protected handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const roll = this.random();
    let fault = roll < this.faultRate ? ['drop', 'reset', 'lose'][Math.floor((roll / this.faultRate) * 3)] : 'pass';
    // Every kind of fault happens at least once, whatever the dice: the first pushes meet them in turn.
    if (req.method === 'POST' && this.forced.length > 0) fault = this.forced.shift()!;
    if (fault === 'drop') {
      this.counts.dropped++;
      req.socket.destroy();
      return;
    }
    const target = new URL(req.url!, this.target);
    const upstream = http.request(target, { method: req.method, headers: req.headers }, (answer) => {
      if (fault === 'lose') {
        // The central has answered (and so committed): the laptop never hears it.
        this.counts.lostAnswer++;
        answer.resume();
        answer.on('end', () => req.socket.destroy());
        return;
      }
      this.counts.passed++;
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => req.socket.destroy());
    if (fault === 'reset' && (req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH')) {
      this.counts.resetMidBody++;
      let sent = 0;
      req.on('data', (chunk: Buffer) => {
        if (sent === 0) upstream.write(chunk.subarray(0, Math.max(1, Math.floor(chunk.length / 2))));
        sent += chunk.length;
        upstream.destroy();
        req.socket.destroy();
      });
      return;
    }
    req.pipe(upstream);
  }
}

/**
 * A proxy that records the pushes passing through it, by device key, so a test can act while one is
 * in flight: `nextPush(key)` resolves once a push of that device has reached the central, and the
 * answers to the devices in `hold` are kept from them (the central has the push; the laptop waits).
 */
export class PushWatch extends LoopbackProxy {
  /** Device keys whose push answers are kept back. */
  readonly hold = new Set<string>();
  /** Pushes per device key that reached the central and whose answer the laptop has not had. */
  private readonly inFlightBy = new Map<string, number>();
  private waiters: Array<{ key: string; done: () => void }> = [];
  inFlight(key: string): number {
    return this.inFlightBy.get(key) ?? 0;
  }
  /** Resolves when device `key`'s next push has been sent on to the central; fails after `ms`. */
  nextPush(key: string, ms = 60_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no push of that device reached the proxy in ${ms} ms`)), ms);
      this.waiters.push({
        key,
        done: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }
  protected handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const key = String(req.headers.authorization ?? '').replace(/^Token /, '');
    const push = req.method === 'POST' && req.url!.startsWith('/api/app/v1/sync/push/');
    if (push) {
      this.inFlightBy.set(key, this.inFlight(key) + 1);
      // Answered, or its connection gone (the laptop or the central killed): no longer in flight.
      res.once('close', () => this.inFlightBy.set(key, this.inFlight(key) - 1));
      req.once('end', () => {
        const ready = this.waiters.filter((w) => w.key === key);
        this.waiters = this.waiters.filter((w) => w.key !== key);
        ready.forEach((w) => w.done());
      });
    }
    const upstream = http.request(new URL(req.url!, this.target), { method: req.method, headers: req.headers }, (answer) => {
      if (push && this.hold.has(key)) {
        // Kept from the laptop while the test acts: the connection dies with whoever is killed.
        answer.resume();
        return;
      }
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => req.socket.destroy());
    req.pipe(upstream);
  }
}

/**
 * A proxy for photo uploads (tus): it can hold photos back (503 to every tus request), cut the next
 * PATCH after some bytes, and counts the bytes of every PATCH body it forwarded with its Upload-Offset.
 */
export class PhotoProxy extends LoopbackProxy {
  holdPhotos = false;
  cutNextPatchAfter: number | null = null;
  /** Hold every photo request from the cut on (the laptop must then resume elsewhere). */
  holdAfterCut = false;
  readonly patches: Array<{ offset: number; bytes: number }> = [];
  get patchedBytes(): number {
    return this.patches.reduce((s, p) => s + p.bytes, 0);
  }
  protected handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const tus = req.url!.startsWith('/api/app/v1/sync/photos/files');
    if (tus && this.holdPhotos) {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"detail":"held by the test"}');
      return;
    }
    const upstream = http.request(new URL(req.url!, this.target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => req.socket.destroy());
    if (req.method !== 'PATCH') {
      req.pipe(upstream);
      return;
    }
    const patch = { offset: Number(req.headers['upload-offset']), bytes: 0 };
    this.patches.push(patch);
    const cut = this.cutNextPatchAfter;
    this.cutNextPatchAfter = null;
    req.on('data', (chunk: Buffer) => {
      if (cut !== null && patch.bytes + chunk.length >= cut) {
        upstream.write(chunk.subarray(0, cut - patch.bytes), () => {
          // The central has these bytes; then the connection dies mid-body.
          setTimeout(() => {
            upstream.destroy();
            req.socket.destroy();
          }, 200);
        });
        patch.bytes = cut;
        if (this.holdAfterCut) this.holdPhotos = true;
        req.pause();
        return;
      }
      patch.bytes += chunk.length;
      upstream.write(chunk);
    });
    req.on('end', () => upstream.end());
  }
}
