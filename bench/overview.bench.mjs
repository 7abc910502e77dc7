// `npm run bench -- overview`: the supervisors' overview over 10,000 visits of 10 scenes each
// (bench/overview-seed.mjs: 100,000 scenes, their FACING_COUNT and MHL_COMPLIANCE reports, photos
// with pixel measures), through the built `serve` in its own process, on SQLite and PostgreSQL.
// Prints: the seed, the first read (which waits for the projection of every stored visit, once after
// migration 0030; the seed marks its rows as stored before it), then for each
// overview read the median and worst of uncached requests over all 10,000 visits (each URL differs
// so the page cache never answers), a cached repeat, and the period's CSV and XLSX export of
// 10,000 visits (time, bytes, the server's peak RSS). The target is under 300 ms for each read.
// OVERVIEW_BENCH_VISITS sets the visits; OVERVIEW_BENCH_PG=0 skips PostgreSQL, OVERVIEW_BENCH_SQLITE=0 SQLite.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, openDatabaseTarget } from '../dist/main/server/storage/database.js';
import { PgCluster, PG_BIN } from '../scripts/pg-cluster.mjs';
import { overviewData, seedOverview } from './overview-seed.mjs';
import { spawnServe } from './serve-process.mjs';
import { treeCpuSeconds } from './process-cpu.mjs';

const KEY = 'bench-key-0123456789abcdefghijklmnopqrstuvwxyz';
const VISITS = Number(process.env.OVERVIEW_BENCH_VISITS ?? 10_000);
const RUNS = 5;
const TARGET_MS = 300;

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function get(url, pathAndQuery) {
  const t0 = process.hrtime.bigint();
  const res = await fetch(url + pathAndQuery, { headers: { authorization: `Token ${KEY}` } });
  const body = await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${pathAndQuery}: ${res.status} ${Buffer.from(body).toString().slice(0, 300)}`);
  return { ms: ms(t0), bytes: body.byteLength, body };
}

/** The server process's resident memory, from /proc (Linux). */
function rss(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** CPU time the server has used (user + system), ms (/proc's 10 ms ticks): a figure the machine's load barely moves. */
const cpu = (pid) => (treeCpuSeconds(pid) ?? NaN) * 1000;

async function measure(label, url, pid) {
  // The seeded visits span 2026-03-01..20: every range below covers all of them, each URL its own.
  const range = (i) => `date_from=2026-03-01&date_to=2026-03-${21 + i}`;
  let t0 = process.hrtime.bigint();
  // Asked again while it waits past fetch's 300 s limit on a loaded machine: the same projection goes on.
  let first;
  for (;;) {
    try {
      first = await get(url, `/api/app/v1/overview/stores/?date_from=2026-02-01&date_to=2026-03-31`);
      break;
    } catch (error) {
      if (error?.cause?.code !== 'UND_ERR_HEADERS_TIMEOUT') throw error;
    }
  }
  console.log(`${label}: first read (waits for the one-time projection of every stored visit after migration 0030, begun at the server's start): ${ms(t0).toFixed(0)} ms (server CPU from its start: ${(cpu(pid) / 1000).toFixed(1)} s)`);
  const reads = [
    ['kpis (day)', (i) => `/api/app/v1/overview/kpis/?${range(i)}`],
    ['kpis (week)', (i) => `/api/app/v1/overview/kpis/?${range(i)}&bucket=week`],
    ['stores', (i) => `/api/app/v1/overview/stores/?${range(i)}`],
    ['missing', (i) => `/api/app/v1/overview/missing/?${range(i)}`],
    ['share', (i) => `/api/app/v1/overview/share/?${range(i)}`],
    ['agents', (i) => `/api/app/v1/overview/agents/?${range(i)}`],
    ['review_queue', (i) => `/api/app/v1/overview/review_queue/?${range(i)}`],
    ['visits', (i) => `/api/app/v1/overview/visits/?${range(i)}&limit=100&offset=5000`],
    ['stores, shop filter', (i) => `/api/app/v1/overview/stores/?${range(i)}&shop=shop-3`],
    ['share, display+category', (i) => `/api/app/v1/overview/share/?${range(i)}&display=display-1&category=cat-2`],
    ['queue, brand filter', (i) => `/api/app/v1/overview/review_queue/?${range(i)}&brand=brand-2`],
    ['kpis, display filter', (i) => `/api/app/v1/overview/kpis/?${range(i)}&display=display-3`],
    ['kpis, category filter', (i) => `/api/app/v1/overview/kpis/?${range(i)}&category=cat-1`],
    ['stores, display filter', (i) => `/api/app/v1/overview/stores/?${range(i)}&display=display-4`],
    ['missing, display filter', (i) => `/api/app/v1/overview/missing/?${range(i)}&display=display-5`],
    ['missing, category filter', (i) => `/api/app/v1/overview/missing/?${range(i)}&category=cat-0`],
    ['missing, brand filter', (i) => `/api/app/v1/overview/missing/?${range(i)}&brand=brand-1`],
    ['missing, agent filter', (i) => `/api/app/v1/overview/missing/?${range(i)}&agent=agent-3`],
    ['share, display filter', (i) => `/api/app/v1/overview/share/?${range(i)}&display=display-6`],
    ['share, category filter', (i) => `/api/app/v1/overview/share/?${range(i)}&category=cat-1`],
    ['share, category+brand', (i) => `/api/app/v1/overview/share/?${range(i)}&category=cat-1&brand=brand-0`],
    ['agents, category filter', (i) => `/api/app/v1/overview/agents/?${range(i)}&category=cat-2`],
    ['queue, display filter', (i) => `/api/app/v1/overview/review_queue/?${range(i)}&display=display-7`],
    ['queue, category filter', (i) => `/api/app/v1/overview/review_queue/?${range(i)}&category=cat-0`],
    ['visits, display+brand', (i) => `/api/app/v1/overview/visits/?${range(i)}&display=display-8&brand=brand-3&limit=100`],
  ];
  let worst = 0;
  for (const [name, urlOf] of reads) {
    const times = [];
    const cpu0 = cpu(pid);
    for (let i = 0; i < RUNS; i++) times.push((await get(url, urlOf(i))).ms);
    const cpuEach = (cpu(pid) - cpu0) / RUNS;
    const cached = await get(url, urlOf(0));
    worst = Math.max(worst, ...times);
    console.log(`${label}: ${name.padEnd(24)} median ${median(times).toFixed(1)} ms, worst ${Math.max(...times).toFixed(1)} ms, server CPU ${cpuEach.toFixed(0)} ms each, cached ${cached.ms.toFixed(1)} ms`);
  }
  console.log(`${label}: worst uncached overview read ${worst.toFixed(1)} ms (target < ${TARGET_MS} ms): ${worst < TARGET_MS ? 'met' : 'NOT met'}`);
  for (const format of ['csv', 'xlsx']) {
    let peak = rss(pid);
    const timer = setInterval(() => (peak = Math.max(peak, rss(pid))), 20);
    t0 = process.hrtime.bigint();
    const before = rss(pid);
    const r = await get(url, `/api/app/v1/overview/export/?date_from=2026-03-01&date_to=2026-03-31&format=${format}`);
    clearInterval(timer);
    console.log(`${label}: export ${format} of ${VISITS} visits: ${ms(t0).toFixed(0)} ms, ${(r.bytes / 1e6).toFixed(2)} MB, server RSS ${before.toFixed(0)} -> peak ${peak.toFixed(0)} MB`);
  }
  void first;
  return worst;
}

const data = overviewData({ visits: VISITS, scenesPerVisit: 10, exactScenes: true, days: 20, shops: 200, agents: 40, skus: 300, displays: 20, seed: 5 });
console.log(`seed: ${data.visits.length} visits, ${data.scenes.length} scenes, ${data.reports.length} reports, ${data.photo_measures.length} measured photos`);

console.log(`load average at start: ${os.loadavg().map((x) => x.toFixed(2)).join(', ')} (${os.cpus().length} CPUs)`);
let failed = false;
if (process.env.OVERVIEW_BENCH_SQLITE !== '0') {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-overview-bench-'));
  try {
    const t0 = process.hrtime.bigint();
    const database = await openDatabase(dir);
    await seedOverview(database.db, data);
    await database.close();
    console.log(`SQLite: seeded in ${(ms(t0) / 1000).toFixed(1)} s`);
    const { server, url } = await spawnServe(dir, KEY);
    try {
      failed ||= (await measure('SQLite', url, server.pid)) >= TARGET_MS;
    } finally {
      server.kill();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.env.OVERVIEW_BENCH_PG !== '0') {
  if (!PG_BIN) {
    console.error('PostgreSQL server binaries not found: cannot measure the central (OVERVIEW_BENCH_PG=0 skips it)');
    process.exit(1);
  }
  const cluster = new PgCluster();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-overview-bench-pg-'));
  try {
    await cluster.start();
    const t0 = process.hrtime.bigint();
    const database = await openDatabaseTarget({ kind: 'postgres', connectionString: cluster.url });
    await seedOverview(database.db, data);
    await database.close();
    console.log(`PostgreSQL: seeded in ${(ms(t0) / 1000).toFixed(1)} s`);
    const { server, url } = await spawnServe(dir, KEY, ['--role', 'central', '--database', cluster.url]);
    try {
      failed ||= (await measure('PostgreSQL', url, server.pid)) >= TARGET_MS;
    } finally {
      server.kill();
    }
  } finally {
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
// Figures, not a pass/fail test: a missed target is printed above, and the run still exits 0.
void failed;
