// API throughput and latency over loopback, side by side with a Django REST Framework 3.14 baseline
// (bench/drf/: gunicorn, 2 sync workers, SQLite in WAL) on the same catalog (100 brands, 50
// categories, 10,000 SKUs) under the same wrk load (2 threads, 50 connections, bench/api.lua):
//   GET a SKU page of 100, the same page each time (the page cache's best case);
//   GET a SKU page of 100 at a random offset (what real clients do: the cache misses);
//   GET one brand (a random one of 100);  POST a brand;  GET /health (calibration);
//   mixed: 19 random-offset pages for each POST of a brand (a central serving the office's screens
//   while laptops push; a laptop's screens while recognition and sync write);
//   cold rows: the random page and the brand in the first seconds of a freshly started server
//   (from the moment `serve` prints `listening on`: after its warm-up before listening, which the
//   start rows' time to listening includes; SHELF_AUDIT_WARM_UP_BEFORE_LISTEN=0 for a start without);
//   after-writes: the random page right after the rows that wrote (caches that writes retired).
// The load generator's floor: the same wrk load against a bare server (bench/reference-server.mjs) that
// spends a fixed API_BENCH_REF_US (170) of CPU a request, about our page's, with a body of a page's size:
// two runs of the cold rows' length on a fresh process. What wrk measures there is wrk's and the shared
// cores' own: on this 2-core machine its 50 connections starting at once on one busy event loop give a
// tail of a few hundred slow requests at the start of every run (docs/api.md, "The load generator's
// floor"), so an 8 s row's p99 can be that start and not the server under test.
// Our server runs the built `serve` CLI, with 1 and 2 processes (--workers) on SQLite, then as the
// central on a throw-away PostgreSQL (scripts/pg-cluster.mjs) with 1 and 2 processes.
// The load generator shares the machine's cores with the servers, and other work may run too: read
// the figures as ratios within one run, not as absolutes. Beside the req/s ratio the table prints
// DRF's server CPU per request over ours: under other work DRF's workers get less than their cores
// (and wrk's timeouts leave requests out of its req/s), which moves the req/s ratio but not that one.
// Env: API_BENCH_SECONDS (default 10), API_BENCH_CONNECTIONS (50), API_BENCH_SKUS (10000),
// API_BENCH_DRF=0 (skip the baseline), API_BENCH_PG=0 (skip PostgreSQL), API_BENCH_ROWS (comma-separated
// row names: cold-page-random,cold-brand-get,page-fixed,page-random,brand-get,brand-post,mixed,after-writes,health),
// API_BENCH_COLD_SECONDS (8: the cold and after-writes rows), API_BENCH_STARTS (3: starts timed to
// listening and first answers, before the cold rows' start), API_BENCH_SERVERS (comma-separated:
// sqlite-1,sqlite-2,pg-1,pg-2; default all), API_BENCH_PROFILE=DIR (our servers' CPU profiles, node --cpu-prof),
// API_BENCH_FLOOR=0 (skip the load generator's floor), API_BENCH_REF_US (170: the floor's CPU a request).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PgCluster, PG_BIN } from '../scripts/pg-cluster.mjs';
import { spawnServe } from './serve-process.mjs';
import { treeCpuSeconds } from './process-cpu.mjs';
import { freePort } from '../scripts/free-port.mjs';

const seconds = Number(process.env.API_BENCH_SECONDS ?? 10);
const connections = Number(process.env.API_BENCH_CONNECTIONS ?? 50);
const skuCount = Number(process.env.API_BENCH_SKUS ?? 10_000);
const BRANDS = 100;
const CATEGORIES = 50;
// DRF's authtoken keys are 40 characters; both servers take the same one.
const KEY = 'bench-key-0123456789abcdefghijklmnopqrst';
const GOAL_RATIO = 10;
const GOAL_P99_MS = 20;
// The cold rows' goal: a fresh process, or caches a write retired, answer within this at the 99th percentile.
const GOAL_COLD_P99_MS = 50;
const coldSeconds = Number(process.env.API_BENCH_COLD_SECONDS ?? 8);
// Starts timed alone (listening, first answers) before the start the cold rows load.
const startRuns = Number(process.env.API_BENCH_STARTS ?? 3);
// [mode, label, seconds, wrk mode]: the cold rows come first, right after the start (no warm-up
// request but the seeding's); `after-writes` is the read-only load right after the rows that write.
const ROWS = [
  ['cold-page-random', `cold: GET a random page, first ${coldSeconds} s`, coldSeconds, 'page-random'],
  ['cold-brand-get', `cold: GET one brand, next ${coldSeconds / 2} s`, coldSeconds / 2, 'brand-get'],
  ['page-fixed', 'GET sku page of 100, same page'],
  ['page-random', 'GET sku page of 100, random offset'],
  ['brand-get', 'GET one brand (random of 100)'],
  ['brand-post', 'POST a brand'],
  ['mixed', 'mixed: 19 random pages : 1 POST brand'],
  ['after-writes', `GET a random page, ${coldSeconds} s after writes`, coldSeconds, 'page-random'],
  ['health', 'GET /health (calibration)'],
]
  .map(([mode, label, secs = seconds, wrkMode = mode]) => [mode, label, secs, wrkMode])
  .filter(([mode]) => !process.env.API_BENCH_ROWS || process.env.API_BENCH_ROWS.split(',').includes(mode));

const SERVERS = (process.env.API_BENCH_SERVERS ?? 'sqlite-1,sqlite-2,pg-1,pg-2').split(',');

const WRK = ['/usr/bin/wrk', '/usr/local/bin/wrk'].find((p) => existsSync(p));
if (!WRK) {
  console.error('api bench FAILED: it needs wrk (apt-get install wrk); nothing was measured');
  process.exit(1);
}
const PYTHON = '/usr/bin/python3';
const drfWanted = process.env.API_BENCH_DRF !== '0';
const hasDrf = drfWanted && spawnSync(PYTHON, ['-c', 'import rest_framework, django, gunicorn'], { stdio: 'ignore' }).status === 0;
// The ratios are the point of this bench; without their baseline it would print figures that only
// look comparable. Leaving DRF out is a choice to say (API_BENCH_DRF=0), never a silent fallback.
if (drfWanted && !hasDrf) {
  console.error('api bench FAILED: the DRF baseline needs python3-djangorestframework, python3-django and gunicorn; set API_BENCH_DRF=0 to measure without it (and without ratios)');
  process.exit(1);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-api-bench-'));
const headers = { authorization: `Token ${KEY}`, 'content-type': 'application/json' };
const catalog = {
  brands: Array.from({ length: BRANDS }, (_, i) => ({ id: `brand-${i}`, name: `Brand ${i}` })),
  categories: Array.from({ length: CATEGORIES }, (_, i) => ({ id: `cat-${i}`, name: `Category ${i}` })),
  skus: Array.from({ length: skuCount }, (_, i) => ({
    id: `sku-${String(i).padStart(5, '0')}`, cid: `C${i}`, ean13: String(4000000000000 + i), name: `Product ${i} 0.5 l`,
    brand: `brand-${i % BRANDS}`, category: `cat-${i % CATEGORIES}`, size_x_mm: 65, size_y_mm: 205, size_z_mm: 65, attributes: { package: 'pet' },
  })),
};

/** Runs wrk once; resolves with req/s, latency percentiles (ms) and failed requests. */
function wrk(url, mode, secs = seconds) {
  return new Promise((resolve, reject) => {
    const child = spawn(WRK, ['-t2', `-c${connections}`, `-d${secs}s`, '--latency', '-s', 'bench/api.lua', url], {
      env: { ...process.env, BENCH_MODE: mode, BENCH_TOKEN: KEY, BENCH_SKUS: String(skuCount), BENCH_BRANDS: String(BRANDS) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('exit', () => {
      const m = /WRK_RESULT (\{.*\})/.exec(out);
      if (!m) return reject(new Error(`wrk printed no result:\n${out}`));
      const r = JSON.parse(m[1]);
      if (process.env.API_BENCH_DEBUG) console.log(out);
      // req/s counts 2xx answers only: an error answered fast must not look like throughput.
      resolve({ rps: r.ok2xx / r.seconds, non2xx: r.non2xx, p50: r.p50_us / 1000, p99: r.p99_us / 1000, max: r.max_us / 1000, bad: r.bad, requests: r.ok2xx });
    });
  });
}

const percentile = (xs, p) => {
  if (!xs.length) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const spread = (xs) => `p50 ${percentile(xs, 50).toFixed(1)} p99 ${percentile(xs, 99).toFixed(1)} ms (${xs.length})`;

/**
 * Beside the mixed row's wrk (which times every request in one histogram): one more client that sends
 * a POST of a brand and then 4 random pages, one request at a time, timing each kind apart; and the
 * disk's fdatasync of a 4 KB write every 20 ms in the tmp directory (the servers' disk), which every
 * SQLite write answer waits for (storage/wal-sync.ts). `stop()` resolves with their latencies (ms).
 */
function mixedProbe(url) {
  let stopped = false;
  const reads = [];
  const posts = [];
  const syncs = [];
  let failed = 0;
  const probe = (async () => {
    for (let i = 0; !stopped; i++) {
      const post = i % 5 === 0;
      const t = performance.now();
      try {
        const r = post
          ? await fetch(`${url}/api/v1.5/brands/`, { method: 'POST', headers, body: '{"name": "Bench brand"}' })
          : await fetch(`${url}/api/v1.5/sku/?limit=100&offset=${Math.floor(Math.random() * (skuCount - 100))}`, { headers });
        await r.arrayBuffer();
        // Only answers that succeeded are timed, as wrk's rows count only 2xx; the others are counted.
        if (r.status >= 300) failed++;
        else (post ? posts : reads).push(performance.now() - t);
      } catch {
        failed++;
      }
    }
  })();
  const disk = (async () => {
    const file = await open(path.join(tmp, 'fdatasync-probe'), 'w');
    const block = Buffer.alloc(4096, 1);
    try {
      while (!stopped) {
        await file.write(block, 0, block.length, 0);
        const t = performance.now();
        await file.datasync();
        syncs.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await file.close();
    }
  })();
  return async () => {
    stopped = true;
    await Promise.all([probe, disk]);
    return { reads, posts, syncs, failed };
  };
}

async function waitFor(url, { allow404 = false } = {}) {
  for (let i = 0; i < 200; i++) {
    try {
      const r = await fetch(url, { headers });
      if (r.status < 500 || (allow404 && r.status === 404)) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** The DRF baseline: its own SQLite file seeded with the catalog, gunicorn with 2 sync workers. */
async function startDrf() {
  const db = path.join(tmp, 'drf.sqlite3');
  const env = { ...process.env, DRF_BENCH_DB: db, PYTHONDONTWRITEBYTECODE: '1' };
  execFileSync(PYTHON, ['seed.py', KEY, String(BRANDS), String(CATEGORIES), String(skuCount)], { cwd: 'bench/drf', env, stdio: 'pipe' });
  const port = await freePort();
  const server = spawn(PYTHON, ['/usr/bin/gunicorn', '-w', '2', '-b', `127.0.0.1:${port}`, '--log-level', 'warning', 'wsgi:application'], {
    cwd: 'bench/drf', env, stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/api/v1.5/brands/brand-0/`);
  return { server, url };
}

/**
 * Our server (1 or more processes), seeded through the import endpoint, then stopped and started
 * again on the same data: the cold rows meet a fresh process (JIT, SQLite's page cache, empty read
 * caches), as a client does after a restart, with only the server's own warm-up (http/warm-up.ts).
 */
async function startOurs(name, args) {
  const dataDir = path.join(tmp, name);
  const t = performance.now();
  const prof = process.env.API_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.API_BENCH_PROFILE}`] : [];
  const seeding = await spawnServe(dataDir, KEY, args);
  const seeded = await fetch(`${seeding.url}/api/app/v1/import/`, { method: 'POST', headers, body: JSON.stringify(catalog) });
  if (seeded.status !== 200) throw new Error(`seeding failed: ${seeded.status} ${await seeded.text()}`);
  const page = await (await fetch(`${seeding.url}/api/v1.5/sku/?limit=100&offset=5000`, { headers })).json();
  if (page.count !== skuCount || page.results.length !== 100) throw new Error('unexpected list page');
  await stop(seeding.server);
  console.log(`${name}: seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  // What a client meets at a start (a desktop window's first screen): the time from spawning the
  // process to its listening (what `serve` prints), and to its first answers, asked one at a time.
  for (let i = 0; i < startRuns; i++) {
    const t0 = performance.now();
    const started = await spawnServe(dataDir, KEY, args);
    const listening = performance.now() - t0;
    const page = await fetch(`${started.url}/api/v1.5/sku/?limit=100&offset=5000`, { headers });
    if (page.status !== 200) throw new Error(`first page: ${page.status}`);
    await page.arrayBuffer();
    const first = performance.now() - t0;
    const brand = await fetch(`${started.url}/api/v1.5/brands/brand-7/`, { headers });
    if (brand.status !== 200) throw new Error(`first brand: ${brand.status}`);
    await brand.arrayBuffer();
    console.log(`  ${name.padEnd(22)} start: listening after ${listening.toFixed(0)} ms, first page answered after ${first.toFixed(0)} ms, then one brand in ${(performance.now() - t0 - first).toFixed(0)} ms  (load ${os.loadavg()[0].toFixed(1)})`);
    await stop(started.server);
  }
  const { server, url } = await spawnServe(dataDir, KEY, args, {}, prof);
  return { server, url };
}

/**
 * The load generator's floor: wrk, as the rows run it, against the bare reference server, twice for the
 * cold rows' length on a fresh process. Prints p50, p99 and max of each run.
 */
async function floor() {
  const us = Number(process.env.API_BENCH_REF_US ?? 170);
  const server = spawn(process.execPath, ['bench/reference-server.mjs'], { env: { ...process.env, REF_US: String(us) }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(server);
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (c) => {
        out += c;
        const m = /listening on (\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      server.on('exit', (code) => reject(new Error(`reference server exited ${code}`)));
    });
    const runs = [];
    for (let i = 0; i < 2; i++) runs.push(await wrk(url, 'page-random', coldSeconds));
    const show = (r) => `p50 ${r.p50.toFixed(1)} p99 ${r.p99.toFixed(1)} max ${r.max.toFixed(0)} ms (${r.rps.toFixed(0)} req/s)`;
    console.log(`load generator's floor: wrk -t2 -c${connections} for ${coldSeconds} s against a bare server spending ${us} µs a request: first run ${show(runs[0])}, second ${show(runs[1])}  (load ${os.loadavg()[0].toFixed(1)})`);
  } finally {
    await stop(server);
  }
}

/** Loads every row against one server; returns {mode: result}. */
async function measure(name, { server, url }, skip = []) {
  const line = (label, r) =>
    console.log(`  ${name.padEnd(22)} ${label.padEnd(38)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  max ${r.max.toFixed(0)} ms` +
      `${r.cpuUs == null ? '' : `  server CPU ${r.cpuUs.toFixed(0)} µs/req`}${r.non2xx ? `  ${r.non2xx} non-2xx` : ''}${r.bad ? `  ${r.bad} FAILED` : ''}  (load ${os.loadavg()[0].toFixed(1)})`);
  const out = {};
  for (const [mode, label, secs, wrkMode] of ROWS) {
    if (skip.includes(mode)) continue;
    const cpu0 = treeCpuSeconds(server.pid);
    const probe = mode === 'mixed' ? mixedProbe(url) : null;
    const r = await wrk(url, wrkMode, secs);
    const cpu1 = treeCpuSeconds(server.pid);
    if (probe) r.probe = await probe();
    // Requests wrk gave up on may still be queued in the server: let it drain before the next row.
    await waitFor(`${url}/health`, { allow404: true });
    r.cpuUs = cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) * 1e6) / r.requests;
    out[mode] = r;
    line(label, r);
    if (r.probe) console.log(`  ${''.padEnd(22)}   beside it, one client: pages ${spread(r.probe.reads)}, POSTs ${spread(r.probe.posts)}${r.probe.failed ? `, ${r.probe.failed} FAILED` : ''}; the disk's fdatasync ${spread(r.probe.syncs)}`);
  }
  return out;
}

const cell = (r) => (r ? `${r.rps.toFixed(0).padStart(6)} ${r.p50.toFixed(1).padStart(5)} ${r.p99.toFixed(1).padStart(6)}` : '     -     -      -');

function table(title, columns, drf) {
  console.log(`\n${title}  (2xx req/s, p50 ms, p99 ms; ${connections} connections, ${seconds} s, wrk -t2)`);
  if (!drf) console.log('no ratios: the DRF baseline was not measured in this run (API_BENCH_DRF=0), and figures from another run are not comparable');
  console.log(`${'request'.padEnd(38)} ${columns.map(([n]) => n.padStart(20)).join(' ')} ${drf ? 'DRF 3.14 gunicorn -w2'.padStart(20) : ''} ${drf ? '  best/DRF' : ''}`);
  for (const [mode, label] of ROWS) {
    const ours = columns.map(([, results]) => results[mode]);
    const best = ours.reduce((a, b) => (b && (!a || b.rps > a.rps) ? b : a), undefined);
    // A ratio only against a baseline measured in this run, on this machine, with no failed answers.
    const ratio = drf?.[mode] && best && drf[mode].rps > 0 && !drf[mode].non2xx ? best.rps / drf[mode].rps : null;
    const p99Goal = mode.startsWith('cold') || mode === 'after-writes' ? GOAL_COLD_P99_MS : GOAL_P99_MS;
    // DRF's requests that wrk gave up on (2 s) are left out of its req/s: its ratio is then flattered.
    const verdict = ratio === null ? '' : `${ratio.toFixed(1)}x${ratio >= GOAL_RATIO ? '' : ' (<10x)'}${best.p99 <= p99Goal ? '' : ` (p99>${p99Goal})`}${drf[mode].bad ? ` (DRF: ${drf[mode].bad} timed out)` : ''}`;
    // Server CPU per request, DRF's over ours: what the ratio of req/s would be with the cores to
    // spare; unlike req/s it does not depend on how the machine's other work shares the cores out.
    const cpu = drf?.[mode]?.cpuUs && best?.cpuUs ? `  CPU/req ${(drf[mode].cpuUs / best.cpuUs).toFixed(0)}x less` : '';
    console.log(`${label.padEnd(38)} ${ours.map(cell).join(' ')} ${drf ? cell(drf[mode]) : ''}   ${verdict}${cpu}`);
    // The mixed row's tail taken apart: what the reads and the POSTs each meet, and the disk's sync.
    if (mode === 'mixed') {
      const part = (pick, p) => ours.map((r) => (r?.probe ? percentile(pick(r.probe), p).toFixed(1).padStart(6) : '     -'));
      const drfPart = (pick) => (drf?.mixed?.probe ? ` ${`${percentile(pick(drf.mixed.probe), 50).toFixed(1).padStart(6)} ${percentile(pick(drf.mixed.probe), 99).toFixed(1).padStart(6)}`.padStart(20)}` : '');
      const row = (name, pick) => console.log(`${`  ${name}, p50 / p99 ms`.padEnd(38)} ${part(pick, 50).map((a, i) => `${a} ${part(pick, 99)[i]}`.padStart(20)).join(' ')}${drfPart(pick)}`);
      row('one more client: pages', (p) => p.reads);
      row('one more client: POSTs', (p) => p.posts);
      row('the disk: fdatasync', (p) => p.syncs);
    }
  }
}

const children = [];
let cluster;
try {
  console.log(`${os.cpus().length} CPU(s), load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  if (process.env.API_BENCH_FLOOR !== '0') await floor();
  let drf;
  if (hasDrf) {
    const d = await startDrf();
    children.push(d.server);
    // The baseline has no /health: its row is ours alone.
    drf = await measure('DRF (gunicorn -w 2)', d, ['health']);
    await stop(d.server);
  } else {
    console.log('DRF baseline left out (API_BENCH_DRF=0): no ratios are printed');
  }
  const sqlite = [];
  for (const workers of [1, 2]) {
    if (!SERVERS.includes(`sqlite-${workers}`)) continue;
    const s = await startOurs(`sqlite-${workers}p`, ['--workers', String(workers)]);
    children.push(s.server);
    sqlite.push([`ours SQLite ${workers} proc`, await measure(`ours SQLite ${workers} proc`, s)]);
    await stop(s.server);
  }
  const pg = [];
  if (process.env.API_BENCH_PG !== '0' && PG_BIN && SERVERS.some((s) => s.startsWith('pg-'))) {
    cluster = new PgCluster();
    await cluster.start({ max_connections: 200 });
    for (const workers of [1, 2]) {
      if (!SERVERS.includes(`pg-${workers}`)) continue;
      // A fresh database for each: the earlier run's POSTs would change the catalog.
      const dbName = `bench${workers}`;
      cluster.run('psql', ['-h', cluster.dir, '-p', String(cluster.port), '-U', 'postgres', '-c', `CREATE DATABASE ${dbName}`]);
      const url = cluster.url.replace('/postgres?', `/${dbName}?`);
      const s = await startOurs(`pg-${workers}p`, ['--role', 'central', '--database', url, '--workers', String(workers)]);
      children.push(s.server);
      pg.push([`ours PG ${workers} proc`, await measure(`ours PostgreSQL ${workers} proc`, s)]);
      await stop(s.server);
    }
  } else if (process.env.API_BENCH_PG !== '0' && SERVERS.some((s) => s.startsWith('pg-'))) {
    console.log('PostgreSQL rows skipped: no PostgreSQL server binaries (apt-get install postgresql)');
  }
  if (sqlite.length) table('Headless server on SQLite vs DRF', sqlite, drf);
  if (pg.length) table('Central on PostgreSQL vs DRF (on SQLite)', pg, drf);
  console.log(`goals: every row >= ${GOAL_RATIO}x DRF's req/s, p99 <= ${GOAL_P99_MS} ms (cold and after-writes rows: ${GOAL_COLD_P99_MS} ms); load average now ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
} finally {
  for (const c of children) await stop(c);
  cluster?.stop();
  rmSync(tmp, { recursive: true, force: true });
}
