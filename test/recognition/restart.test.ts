// Crash safety of the job queue: a real server process is killed (SIGKILL) while it works on a
// recognition job; a new server on the same data directory takes the job back at once, without
// waiting for the dead process's lease to expire, and finishes it: every report ends READY, nothing
// is lost or duplicated, and the job is done in the same commit as its last report.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningUrl } from '../serve-listening.js';
import { DATA, referenceFiles } from './fixtures.js';

const SERVE = path.resolve('dist/main/cli/serve.js');
const KEY = 'restart-test-key-0123456789abcdefghijklmnop';
let dataDir: string;
let child: ChildProcess | undefined;

async function startChild(): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, [SERVE, '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--api-key', KEY], {
    // A lease far longer than the test: the job must come back because its process is gone, not because the lease ran out.
    // Price tags are not read: this is about the job surviving a kill, and reading two full-size photos'
    // tags adds half a minute on a busy 2-core machine (the price stage has tests of its own).
    env: { ...process.env, SHELF_AUDIT_JOB_LEASE_MS: '600000', SHELF_AUDIT_READ_PRICES: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Fails after 60 s with what the process printed, rather than waiting for the test's own timeout.
  return { url: await listeningUrl(proc, 60_000), proc };
}

/** Polls `fn` until it returns a value; past `ms` it throws, naming `what`. */
async function waitFor<T>(what: string, fn: () => T | undefined, ms: number, every = 50): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

async function call(url: string, method: string, p: string, body?: unknown | FormData) {
  const headers: Record<string, string> = { authorization: `Token ${KEY}` };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(url + p, { method, headers, body: payload });
  return { status: res.status, body: (await res.json()) as any };
}

async function uploadFile(url: string, bytes: Buffer) {
  const form = new FormData();
  form.append('datafile', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), 'p.jpg');
  const r = await call(url, 'POST', '/api/v1.5/uploads/', form);
  expect(r.status).toBe(201);
  return r.body.id as string;
}

function lease(): { lease_owner: string | null; lease_until: string | null } {
  const db = new Database(path.join(dataDir, 'shelf-audit.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT lease_owner, lease_until FROM recognition_jobs').get() as { lease_owner: string | null; lease_until: string | null };
  } finally {
    db.close();
  }
}

/**
 * The job and its reports as one committed state (one statement, one read snapshot): how many of
 * the job's reports are still NOT_READY, and the job's own status.
 */
function jobAndReports(): { status: string; not_ready: number; reports: number } {
  const db = new Database(path.join(dataDir, 'shelf-audit.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(
        `SELECT j.status AS status,
                (SELECT count(*) FROM reports r, json_each(j.reports) e WHERE r.id = e.value AND r.status = 'NOT_READY') AS not_ready,
                (SELECT count(*) FROM json_each(j.reports)) AS reports
           FROM recognition_jobs j`,
      )
      .get() as { status: string; not_ready: number; reports: number };
  } finally {
    db.close();
  }
}

function jobs(): Array<{ status: string; attempts: number }> {
  const db = new Database(path.join(dataDir, 'shelf-audit.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT status, attempts FROM recognition_jobs').all() as Array<{ status: string; attempts: number }>;
  } finally {
    db.close();
  }
}

beforeAll(() => {
  if (!existsSync(SERVE)) throw new Error('dist/ is missing: run `npm run build` (npm test does) before this test');
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-restart-'));
});
afterAll(() => {
  child?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a server killed mid-job', () => {
  it('finishes the job after a restart', async () => {
    let server = await startChild();
    child = server.proc;
    expect((await call(server.url, 'POST', '/api/v1.5/sku/', { id: 'fanta', name: 'Fanta' })).status).toBe(201);
    const ref = await uploadFile(server.url, readFileSync(referenceFiles('fanta_pet')[0]));
    expect((await call(server.url, 'POST', '/api/v1.5/sku/fanta/images/', { image: ref })).status).toBe(201);
    // Two full-size shelf photos: decoding, detecting and stitching them takes seconds.
    const photos = ['test_1079.jpg', 'test_1094.jpg'].map((f) => path.join(DATA, 'shelf-photos', f));
    const images = [];
    for (const p of photos) images.push(await uploadFile(server.url, await sharp(p).jpeg({ quality: 85 }).toBuffer()));
    const rec = await call(server.url, 'POST', '/api/v1.5/recognize/', { images, report_types: ['FACING_COUNT', 'REALOGRAM', 'PANORAMA'] });
    expect(rec.status).toBe(201);

    await waitFor('the job to be running', () => (jobs()[0]?.status === 'running' ? true : undefined), 30_000, 20);
    await new Promise((r) => setTimeout(r, 300));
    server.proc.kill('SIGKILL');
    await new Promise((r) => server.proc.once('exit', r));
    expect(jobs()).toEqual([{ status: 'running', attempts: 1 }]);
    const db = new Database(path.join(dataDir, 'shelf-audit.sqlite'), { readonly: true });
    const before = db.prepare("SELECT count(*) AS n FROM reports WHERE status = 'NOT_READY'").get() as { n: number };
    db.close();
    expect(before.n).toBeGreaterThan(0); // killed before the job was done

    const dead = lease();
    expect(Date.parse(dead.lease_until!)).toBeGreaterThan(Date.now() + 500_000);

    server = await startChild();
    child = server.proc;
    // Taken back by the new process (another lease owner, or none between reclaim and claim), long
    // before the dead one's lease would have run out.
    await waitFor('the job to be taken back from the dead process', () => (lease().lease_owner !== dead.lease_owner ? true : undefined), 60_000);
    expect(Date.now()).toBeLessThan(Date.parse(dead.lease_until!));
    // Waits on the job's own state: `done` is what "finished" means, and only then are its reports read.
    // Meanwhile every committed state is looked at (one snapshot each): a job is done exactly when its
    // last report is written, never later (a client seeing every report READY sees the job done).
    const seen: Array<{ status: string; not_ready: number; reports: number }> = [];
    await waitFor(
      'the job to be done',
      () => {
        const s = jobAndReports();
        if (seen.length === 0 || JSON.stringify(seen.at(-1)) !== JSON.stringify(s)) seen.push(s);
        if (s.status === 'failed') throw new Error(`the job failed: ${JSON.stringify(jobs())}`);
        return s.status === 'done' ? s : undefined;
      },
      120_000,
      2,
    );
    expect(seen.filter((s) => s.not_ready === 0 && s.status !== 'done'), `states seen: ${JSON.stringify(seen)}`).toEqual([]);
    expect(seen.at(-1)).toEqual({ status: 'done', not_ready: 0, reports: 3 });
    const ids = Object.values(rec.body.reports) as string[];
    const reports = await Promise.all(ids.map(async (id) => (await call(server.url, 'GET', `/api/v1.5/reports/${id}/`)).body));
    expect(reports.map((r) => [r.report_type, r.status, r.error])).toEqual([
      ['FACING_COUNT', 'READY', null],
      ['REALOGRAM', 'READY', null],
      ['PANORAMA', 'READY', null],
    ]);
    expect(reports[1].json.map((i: any) => i.image)).toEqual(images);
    expect(jobs()).toEqual([{ status: 'done', attempts: 2 }]);
    server.proc.kill('SIGTERM');
    await new Promise((r) => server.proc.once('exit', r));
    child = undefined;
  }, 240_000);
});
