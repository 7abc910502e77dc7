// Several server processes over one database (`serve --workers N`), SQLite or the central's
// PostgreSQL: they answer on one port, see each other's writes at once (lists, records and verified
// keys and the Data API's pages are kept per process only while the database is unchanged), stop
// together on SIGTERM; recognition jobs are leased once.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimJob } from '../../main/server/scenes/jobs/queue.js';
import { PgCluster } from '../../scripts/pg-cluster.mjs';
import { DATABASE_FILE, openDatabase } from '../../main/server/storage/database.js';
import { listeningUrl } from '../serve-listening.js';
import { childrenOf, requestAnsweredBy } from './answering-process.js';

const root = path.resolve(import.meta.dirname, '../..');
const KEY = 'workers-key-0123456789abcdefghijklmnop';

/**
 * `serve --workers 2` over `extraArgs`' database: every process sees every write at once (a list
 * after a create or rename, a record by id after its rename, a key after its revocation), and
 * SIGTERM stops them all.
 */
async function seesEveryWriteAtOnce(extraArgs: string[]): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-workers-'));
  const child = spawn(process.execPath, [path.join(root, 'dist/main/cli/serve.js'), '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--api-key', KEY, '--workers', '2', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const headers = { authorization: `Token ${KEY}`, 'content-type': 'application/json' };
  try {
    const url = await listeningUrl(child);
    const workers = childrenOf(child.pid!);
    expect(workers).toHaveLength(2);
    // Every read over a connection of its own, with the process that answered it recorded: each
    // batch of reads must have been answered by both processes, or it proves nothing about the other.
    const read = (p: string, key = KEY) => requestAnsweredBy(url, workers, 'GET', p, { authorization: `Token ${key}` });
    const byBoth = async (what: string, check: (answer: Awaited<ReturnType<typeof read>>) => void, send: () => ReturnType<typeof read>) => {
      const answeredBy = new Set<number>();
      for (let i = 0; i < 6; i++) {
        const answer = await send();
        check(answer);
        answeredBy.add(answer.pid);
      }
      expect([...answeredBy].sort(), `${what}: answered by`).toEqual([...workers].sort());
    };
    for (let round = 0; round < 4; round++) {
      const created = await fetch(`${url}/api/v1.5/brands/`, { method: 'POST', headers, body: JSON.stringify({ id: `b${round}`, name: `Brand ${round}` }) });
      expect(created.status).toBe(201);
      await byBoth(`list after create ${round}`, (a) => {
        expect(a.body.count).toBe(round + 1);
        expect(a.body.results[0]).toEqual({ id: `b${round}`, name: `Brand ${round}` });
      }, () => read('/api/v1.5/brands/?limit=2&offset=0&ordering=-name'));
      // The Data API's pages are kept per process (http/page-cache.ts) under the database's change
      // stamp: a page kept by either process before this write must not be served after it.
      await byBoth(`Data API page after create ${round}`, (a) => {
        expect(a.status).toBe(200);
        expect(a.body.count).toBe(round + 1);
      }, () => read('/api/data/v1.0/brands/?limit=100'));
    }
    // By-id reads are kept too: read (and kept) in both processes before the rename, then after it.
    await byBoth('by id before the rename', (a) => expect(a.body).toEqual({ id: 'b0', name: 'Brand 0' }), () => read('/api/v1.5/brands/b0/'));
    const renamed = await fetch(`${url}/api/v1.5/brands/b0/`, { method: 'PATCH', headers, body: JSON.stringify({ name: 'Renamed' }) });
    expect(renamed.status).toBe(200);
    await byBoth('list after the rename', (a) => expect(a.body.results.find((b: { id: string }) => b.id === 'b0')?.name).toBe('Renamed'), () => read('/api/v1.5/brands/?limit=10'));
    await byBoth('by id after the rename', (a) => expect(a.body).toEqual({ id: 'b0', name: 'Renamed' }), () => read('/api/v1.5/brands/b0/'));
    await byBoth('Data API page after the rename', (a) => expect(JSON.stringify(a.body.results)).toContain('Renamed'), () => read('/api/data/v1.0/brands/?limit=100'));
    // A key revoked through one process is refused by every process from then on.
    const second = (await (await fetch(`${url}/api/app/v1/keys/`, { method: 'POST', headers, body: JSON.stringify({ name: 'second' }) })).json()) as { id: string; key: string };
    await byBoth('a new key', (a) => expect(a.status).toBe(200), () => read('/api/v1.5/brands/', second.key));
    expect((await fetch(`${url}/api/app/v1/keys/${second.id}/`, { method: 'DELETE', headers })).status).toBe(200);
    await byBoth('a revoked key', (a) => expect(a.status).toBe(401), () => read('/api/v1.5/brands/', second.key));
    // Writes too, with the key kept by both processes across writes (the key cache follows the keys'
    // own version, not every write): a third key writes through both, is revoked through one, and
    // every write with it is refused from then on.
    const third = (await (await fetch(`${url}/api/app/v1/keys/`, { method: 'POST', headers, body: JSON.stringify({ name: 'third', role: 'admin' }) })).json()) as { id: string; key: string };
    let n = 0;
    const post = () => requestAnsweredBy(url, workers, 'POST', '/api/v1.5/brands/', { authorization: `Token ${third.key}` }, JSON.stringify({ name: `By third ${n++}` }));
    await byBoth('writes with a new key', (a) => expect(a.status).toBe(201), post);
    expect((await fetch(`${url}/api/app/v1/keys/${third.id}/`, { method: 'DELETE', headers })).status).toBe(200);
    await byBoth('writes with a revoked key', (a) => expect(a.status).toBe(401), post);
    expect((await (await fetch(`${url}/api/v1.5/brands/?search=By+third`, { headers })).json()).count).toBe(6);

    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
  } finally {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('serve --workers 2 (build)', () => {
  it('serves from two processes on one port; every process sees every write at once; SIGTERM stops them all', async () => {
    await seesEveryWriteAtOnce([]);
  }, 120_000);

  // The central's caches follow PostgreSQL's snapshot (storage/change-stamp.ts), not SQLite's counters.
  it('as the central on PostgreSQL too: every process sees every write at once', async () => {
    const cluster = new PgCluster();
    try {
      await cluster.start();
      await seesEveryWriteAtOnce(['--role', 'central', '--database', cluster.url]);
    } finally {
      cluster.stop();
    }
  }, 120_000);

  it('stores every write when both processes write at once (SQLite: each group commit waits for the write lock)', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-workers-'));
    const child = spawn(process.execPath, [path.join(root, 'dist/main/cli/serve.js'), '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--api-key', KEY, '--workers', '2'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const headers = { authorization: `Token ${KEY}`, 'content-type': 'application/json' };
    try {
      const url = await listeningUrl(child);
      // Waves of concurrent creates over fresh connections, which the cluster spreads over both
      // processes: each process's group commits race the other's for SQLite's one write lock.
      const WAVES = 15;
      const PER_WAVE = 40;
      const statuses: number[] = [];
      for (let wave = 0; wave < WAVES; wave++) {
        const created = await Promise.all(
          Array.from({ length: PER_WAVE }, async (_, i) => {
            const response = await fetch(`${url}/api/v1.5/brands/`, { method: 'POST', headers, body: JSON.stringify({ id: `w${wave}-${i}`, name: `Wave ${wave}` }) });
            await response.arrayBuffer();
            return response.status;
          }),
        );
        statuses.push(...created);
      }
      expect(statuses.filter((s) => s !== 201)).toEqual([]);
      const page = (await (await fetch(`${url}/api/v1.5/brands/?limit=1`, { headers })).json()) as { count: number };
      expect(page.count).toBe(WAVES * PER_WAVE);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.on('exit', resolve));
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses a --workers that is not a count', async () => {
    const child = spawn(process.execPath, [path.join(root, 'dist/main/cli/serve.js'), '--workers', 'many'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(2);
    expect(err).toMatch(/invalid --workers many/);
  });
});

describe('recognition jobs over one database from several processes', () => {
  it('leases each job once when claimers race on separate connections', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-lease-'));
    const a = await openDatabase(dataDir);
    const b = await openDatabase(dataDir);
    try {
      // Job rows alone (their scenes do not matter to the queue): foreign keys off on this connection.
      const raw = new Database(path.join(dataDir, DATABASE_FILE));
      raw.pragma('foreign_keys = OFF');
      const insert = raw.prepare("INSERT INTO recognition_jobs (id, scene_id, reports, status, attempts, created_at, updated_at) VALUES (?, ?, '[]', 'queued', 0, ?, ?)");
      const JOBS = 40;
      for (let i = 0; i < JOBS; i++) insert.run(`job-${i}`, `scene-${i}`, new Date().toISOString(), new Date().toISOString());
      raw.close();

      const claimed: string[] = [];
      const claimer = async (db: typeof a.db, owner: string) => {
        for (let idle = 0; idle < 20; ) {
          // A claimer that loses a race on SQLite may get SQLITE_BUSY: it tries again, as the worker does.
          const job = await claimJob(db, owner, 60_000).catch(() => 'busy' as const);
          if (job === 'busy') continue;
          if (job === null) idle++;
          else claimed.push(job.id);
        }
      };
      await Promise.all([claimer(a.db, 'worker-a'), claimer(b.db, 'worker-b'), claimer(a.db, 'worker-c'), claimer(b.db, 'worker-d')]);
      expect(claimed.toSorted()).toEqual(Array.from({ length: JOBS }, (_, i) => `job-${i}`).toSorted());
      const owners = await a.db.selectFrom('recognition_jobs' as never).select(['status', 'attempts'] as never[]).execute();
      expect(owners.every((r) => (r as { status: string; attempts: number }).status === 'running' && (r as { attempts: number }).attempts === 1)).toBe(true);
    } finally {
      await a.close();
      await b.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
