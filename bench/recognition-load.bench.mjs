// Recognition under load on the headless server: the `serve` CLI in its own process, the
// recognition bench's catalog, and 20 recognitions (FACING_COUNT) posted at once, half of the real
// 12 MP shelf photo, half of the composed one. Meanwhile this process asks GET /health every 25 ms
// (one request at a time) and samples the server's resident memory. Prints the /health latency
// (p50, p99, max), when the jobs' FACING_COUNT reports became READY (from their common start: the
// queue runs them in turn, in the order posted), and the server process's peak RSS (VmHWM, its whole life).
// Goals: /health p99 under 20 ms while the jobs run; the server's peak RSS under 1 GB.
// Env: LOAD_BENCH_JOBS (default 20), SHARED_DATA, RECOGNITION_BENCH_PHOTO; SERVE_ENV_* are passed
// to the server without the prefix (SERVE_ENV_SHELF_AUDIT_IDENTIFY_THREADS=2, say) to compare settings.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addCatalog, apiClient, composedShelfPhoto, realShelfPhoto } from './recognition-scene.mjs';
import { spawnServe } from './serve-process.mjs';

const KEY = 'bench-key-0123456789abcdefghijklmnopqrstuvwxyz';
const jobs = Number(process.env.LOAD_BENCH_JOBS ?? 20);
const HEALTH_GOAL_MS = 20;
const RSS_GOAL_MB = 1024;
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('SERVE_ENV_')).map(([k, v]) => [k.slice('SERVE_ENV_'.length), v]));

/** kB of a /proc/PID/status field (Linux), or NaN elsewhere. */
function procStatus(pid, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-recognition-load-'));
const { server, url } = await spawnServe(dataDir, KEY, [], env);
try {
  const client = apiClient(url, KEY);
  const { api, upload } = client;
  console.log(`${os.availableParallelism()} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  let t = performance.now();
  const refs = await addCatalog(client);
  console.log(`catalog: ${refs} reference images in ${((performance.now() - t) / 1000).toFixed(1)} s` + (Object.keys(env).length ? `; server env ${JSON.stringify(env)}` : ''));
  const photos = [await realShelfPhoto(), await composedShelfPhoto()];
  const uploads = [];
  for (const p of photos) uploads.push((await upload(p.bytes)).id);

  async function recognize(n) {
    const t0 = performance.now();
    const posted = await Promise.all(
      Array.from({ length: n }, (_, i) => api('POST', '/api/v1.5/recognize/', { images: [uploads[i % uploads.length]], report_types: ['FACING_COUNT'] })),
    );
    // The queue runs the jobs in the order posted: one request every 100 ms, for the first report not
    // yet READY (asking for all 20 each time would load the server beside the jobs).
    const readyAt = [];
    const deadline = Date.now() + 600_000;
    while (readyAt.length < n) {
      const r = await api('GET', `/api/v1.5/reports/${posted[readyAt.length].reports.FACING_COUNT}/`);
      if (r.status === 'ERROR') throw new Error(`FACING_COUNT: ${r.error}`);
      if (r.status === 'READY') {
        readyAt.push(performance.now() - t0);
        continue;
      }
      if (Date.now() > deadline) throw new Error('reports still NOT_READY after 10 minutes');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return readyAt;
  }

  // Warm the models first, so the figures are recognition's, not the models' loading.
  await recognize(uploads.length);

  const health = [];
  let rssMax = 0;
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const t1 = performance.now();
      const res = await fetch(`${url}/health`);
      await res.arrayBuffer();
      health.push(performance.now() - t1);
      rssMax = Math.max(rssMax, procStatus(server.pid, 'VmRSS') || 0);
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  t = performance.now();
  const readyAt = await recognize(jobs);
  const wall = (performance.now() - t) / 1000;
  polling = false;
  await poll;
  const peak = procStatus(server.pid, 'VmHWM');

  health.sort((a, b) => a - b);
  const q = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  const sorted = [...readyAt].sort((a, b) => a - b);
  console.log(`${jobs} recognitions posted at once (FACING_COUNT; ${photos.map((p) => p.label).join(' / ')}, alternating), 4000x3000`);
  console.log(`all READY after ${wall.toFixed(1)} s: ${(wall / jobs).toFixed(2)} s per photo; FACING_COUNT READY from the common start: first ${sorted[0].toFixed(0)} ms, median ${q(sorted, 0.5).toFixed(0)} ms, last ${sorted.at(-1).toFixed(0)} ms`);
  const p99 = q(health, 0.99);
  console.log(`GET /health meanwhile (${health.length} requests, one at a time): p50 ${q(health, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${health.at(-1).toFixed(1)} ms (goal p99 < ${HEALTH_GOAL_MS} ms: ${p99 < HEALTH_GOAL_MS ? 'met' : 'NOT met'})`);
  const peakMb = (Number.isNaN(peak) ? rssMax : peak) / 1024;
  console.log(`server process peak RSS: ${peakMb.toFixed(0)} MB (largest sample during the jobs ${(rssMax / 1024).toFixed(0)} MB; goal < ${RSS_GOAL_MB} MB: ${peakMb < RSS_GOAL_MB ? 'met' : 'NOT met'})`);
} finally {
  const exited = new Promise((r) => server.once('exit', r));
  server.kill('SIGTERM');
  await exited;
  rmSync(dataDir, { recursive: true, force: true });
}
