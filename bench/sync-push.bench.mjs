// Sync push: a laptop's day pushed over loopback to a central on PostgreSQL, against a
// plain upload of the same photo bytes with curl; then the central's push throughput with many devices
// at once, with 1 and 2 server processes over one database.
//
// 1. Laptop: VISITS visits with PHOTOS real shelf photos each (the SKU-110K evaluation photos,
//    enlarged to ~3-4 MB and made distinct by a JPEG comment), uploaded through the laptop's API while
//    it has no central. Then the central is set in its sync settings and the clock runs until the
//    laptop reports nothing pending: records pushed, every photo sent by tus and verified.
// 2. curl: the same files, one curl process, one keep-alive connection, to a sink that writes and
//    fsyncs each body (as the central does) and deletes it.
// 3. DEVICES simulated devices push batches of visit records at once (the central's push endpoint,
//    device keys): records/s with 1 and with 2 central processes.
// 4. The office's screens during those pushes: wrk (1 thread, OFFICE_READERS connections) reads a SKU
//    page and a visit page of 50 in turn, at random offsets (bench/api.lua, mode office), from a
//    central with 2,000 SKUs and DEVICES x 100 visits, for OFFICE_SECONDS without pushes and then as
//    long again while the DEVICES push batch after batch: the readers' p99 with pushes next to
//    without (goal: at most 2x).
// 5. DEVICES simulated devices send DEVICE_PHOTOS photos each at once (tus: create, then one PATCH),
//    spread over 2 central processes, with the file store (one shared data folder) and with the
//    S3 bucket (Ceph's RADOS gateway on a one-node in-memory cluster, scripts/s3-server.mjs): MB/s,
//    the central processes' CPU per photo, and the gateway's (radosgw + the OSD) apart.
//
//   node bench/sync-push.bench.mjs [--visits 1000] [--photos 5] [--devices 50] [--batches 10] [--device-photos 4]
// --visits 0 skips parts 1 to 3; --device-photos 0 skips part 5.
// BENCH_SYNC_PROFILE=DIR writes the laptop's and the central's CPU profiles (node --cpu-prof) there;
// BENCH_SYNC_NODE_ARGS adds node flags to both (e.g. "--trace-gc", with BENCH_SERVE_STDOUT_DIR=DIR to
// keep what they print); BENCH_SYNC_FLUSH=0 skips the `sync` before each upload.
// BENCH_SYNC_PARTS (comma-separated: laptop,devices,office,photos; default all): `office` alone needs no photos.
// Disk: about 2 x visits x photos x 3.5 MB while it runs (laptop and central copies), removed after.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { PgCluster, PG_BIN } from '../scripts/pg-cluster.mjs';
import { CephS3, cephInstalled } from '../scripts/s3-server.mjs';
import { spawnServe } from './serve-process.mjs';
import { cpu, processTree } from './process-cpu.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : Number(process.env[`BENCH_SYNC_${name.toUpperCase()}`] ?? fallback);
};
const VISITS = arg('visits', 1000);
const PHOTOS = arg('photos', 5);
const DEVICES = arg('devices', 50);
const BATCHES = arg('batches', 10);
const BATCH = 100;
const OFFICE_SECONDS = arg('office_seconds', 10);
const OFFICE_READERS = arg('office_readers', 4);
// --office_workers N (BENCH_SYNC_OFFICE_WORKERS): the office's central as N processes (`serve --workers N`).
const OFFICE_WORKERS = arg('office_workers', 1);
const OFFICE_SKUS = 2000;
const PARTS = (process.env.BENCH_SYNC_PARTS ?? 'laptop,devices,office,photos').split(',');
const DEVICE_PHOTOS = arg('device-photos', 4);
const KEY = 'bench-sync-push-admin-key';
const PHOTO_DIR = '../shared/data/shelf-photos';

if (!PG_BIN) {
  console.log('sync push bench: skipped (no PostgreSQL server binaries)');
  process.exit(0);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-bench-sync-'));
const cluster = new PgCluster();
const children = [];

function peakMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)[1]) / 1024;
}

function rssMb(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
}

async function call(base, method, p, body, key = KEY, headers = {}) {
  const res = await fetch(base + p, {
    method,
    headers: { authorization: `Token ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** The base photos: each real photo enlarged to ~3-4 MB. */
async function basePhotos() {
  const files = readdirSync(PHOTO_DIR).filter((f) => f.endsWith('.jpg')).sort();
  const out = [];
  for (const f of files) {
    const input = path.join(PHOTO_DIR, f);
    const { width } = await sharp(input).metadata();
    out.push(await sharp(input).resize(Math.round(width * 1.6)).jpeg({ quality: 93 }).toBuffer());
  }
  return out;
}

/** A distinct photo: a JPEG comment right after SOI carrying its number. */
function distinct(base, n) {
  const text = Buffer.from(`bench photo ${n}`);
  const seg = Buffer.alloc(4);
  seg.writeUInt16BE(0xfffe, 0);
  seg.writeUInt16BE(text.length + 2, 2);
  return Buffer.concat([base.subarray(0, 2), seg, text, base.subarray(2)]);
}

async function pool(n, count, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < count) await fn(next++);
  }));
}

async function laptopPush() {
  const bases = await basePhotos();
  const prof = process.env.BENCH_SYNC_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SYNC_PROFILE}`] : [];
  if (process.env.BENCH_SYNC_NODE_ARGS) prof.push(...process.env.BENCH_SYNC_NODE_ARGS.split(' '));
  const central = await spawnServe(path.join(tmp, 'central'), KEY, ['--role', 'central', '--database', cluster.url], {}, prof);
  const laptop = await spawnServe(path.join(tmp, 'laptop'), KEY, [], { SHELF_AUDIT_SYNC_INTERVAL_MS: '200' }, prof);
  children.push(central.server, laptop.server);
  const device = await call(central.url, 'POST', '/api/app/v1/devices/', { name: 'bench laptop', role: 'auditor' });

  let bytes = 0;
  const t0 = performance.now();
  await pool(4, VISITS, async (v) => {
    const visit = await call(laptop.url, 'POST', '/api/v1.5/visits/', { shop: `bench shop ${v}` });
    for (let p = 0; p < PHOTOS; p++) {
      const photo = distinct(bases[(v * PHOTOS + p) % bases.length], v * PHOTOS + p);
      bytes += photo.length;
      const form = new FormData();
      form.append('datafile', new Blob([photo], { type: 'image/jpeg' }), 'p.jpg');
      const res = await fetch(`${laptop.url}/api/v1.5/uploads/`, { method: 'POST', headers: { authorization: `Token ${KEY}` }, body: form });
      if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
    void visit;
  });
  const seeded = (performance.now() - t0) / 1000;
  const before = await call(laptop.url, 'GET', '/api/app/v1/sync/status/');

  // Both uploads start with the seeded photos on disk, not as gigabytes of dirty pages the kernel is
  // still writing back while they run.
  if (process.env.BENCH_SYNC_FLUSH !== '0') spawnSync('sync');
  const cpuBefore = [cpu(laptop.server.pid), cpu(central.server.pid)];
  const t1 = performance.now();
  await call(laptop.url, 'PUT', '/api/app/v1/sync/settings/', { central_url: central.url, device_key: device.key });
  // Resident memory by how far the photos have gone: flat means it does not grow with the queue.
  const rssAt = new Map();
  const totalPhotos = VISITS * PHOTOS;
  for (;;) {
    const s = await call(laptop.url, 'GET', '/api/app/v1/sync/status/');
    const quarter = Math.floor((4 * (totalPhotos - s.pending_photos)) / totalPhotos);
    if (s.state === 'syncing' && !rssAt.has(quarter)) {
      const [u, sys] = cpu(central.server.pid);
      rssAt.set(quarter, [rssMb(laptop.server.pid), rssMb(central.server.pid), u + sys, totalPhotos - s.pending_photos, performance.now()]);
    }
    if (s.state === 'idle' && s.pending_records === 0 && s.pending_photos === 0) break;
    if (['revoked', 'outdated', 'clock_skew', 'error'].includes(s.state)) throw new Error(`sync: ${s.message}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const syncSeconds = (performance.now() - t1) / 1000;
  const laptopPeak = peakMb(laptop.server.pid);
  const centralPeak = peakMb(central.server.pid);
  const used = (now, before) => now.map((v, i) => v - before[i]);
  const cpuSync = [used(cpu(laptop.server.pid), cpuBefore[0]), used(cpu(central.server.pid), cpuBefore[1])];

  // The same bytes with curl, from the laptop's own files.
  const laptopDb = new Database(path.join(tmp, 'laptop', 'shelf-audit.sqlite'), { readonly: true });
  const files = laptopDb.prepare('SELECT file FROM uploads').all().map((r) => path.join(tmp, 'laptop', 'uploads', r.file));
  // A real visit row: the shape the many-devices part pushes.
  const { data_id: _dataId, ...visitRow } = laptopDb.prepare('SELECT * FROM visits LIMIT 1').get();
  laptopDb.close();
  const sinkDir = path.join(tmp, 'sink');
  const sink = spawn(process.execPath, ['-e', `
    const fs = require('node:fs'); const http = require('node:http'); let n = 0;
    fs.mkdirSync(${JSON.stringify(sinkDir)}, { recursive: true });
    http.createServer((req, res) => {
      const file = ${JSON.stringify(sinkDir)} + '/' + (n++);
      const out = fs.createWriteStream(file);
      req.pipe(out);
      out.on('finish', () => { const fd = fs.openSync(file, 'r'); fs.fsyncSync(fd); fs.closeSync(fd); fs.unlinkSync(file); res.end('ok'); });
    }).listen(0, '127.0.0.1', function () { console.log(this.address().port); });
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(sink);
  const port = await new Promise((resolve) => sink.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
  const config = path.join(tmp, 'curl.conf');
  writeFileSync(config, files.map((f, i) => `upload-file = "${f}"\nurl = "http://127.0.0.1:${port}/${i}"\noutput = "/dev/null"\n`).join(''));
  if (process.env.BENCH_SYNC_FLUSH !== '0') spawnSync('sync');
  const t2 = performance.now();
  const curl = spawnSync('curl', ['-s', '-S', '-K', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  const curlSeconds = (performance.now() - t2) / 1000;
  if (curl.status !== 0) throw new Error(`curl exited ${curl.status}`);
  sink.kill();

  const records = before.pending_records;
  const mb = bytes / 1024 / 1024;
  console.log(`laptop: ${VISITS} visits x ${PHOTOS} photos = ${VISITS * PHOTOS} photos, ${mb.toFixed(0)} MB (mean ${(mb / (VISITS * PHOTOS)).toFixed(1)} MB); ${records} records queued (seeding took ${seeded.toFixed(1)} s)`);
  console.log('| push to the central (PostgreSQL, loopback) | wall | records/s | MB/s |');
  console.log('|---|---|---|---|');
  console.log(`| sync: records + photos over tus, hash verified | ${syncSeconds.toFixed(1)} s | ${(records / syncSeconds).toFixed(0)} | ${(mb / syncSeconds).toFixed(1)} |`);
  console.log(`| curl: the same bytes, plain PUT, fsynced | ${curlSeconds.toFixed(1)} s | | ${(mb / curlSeconds).toFixed(1)} |`);
  console.log(`ratio sync / curl: ${(syncSeconds / curlSeconds).toFixed(2)}x (goal: at most 1.5x)`);
  const [[lu, ls], [cu, cs]] = cpuSync;
  console.log(`CPU during the sync (user + system): laptop ${lu.toFixed(1)} + ${ls.toFixed(1)} s, central ${cu.toFixed(1)} + ${cs.toFixed(1)} s`);
  console.log(`RSS as the photos went (laptop / central): ${[...rssAt].sort((a, b) => a[0] - b[0]).map(([q, [l, c]]) => `${q * 25}%: ${l.toFixed(0)} / ${c.toFixed(0)} MB`).join(', ')}`);
  // CPU per photo between quarters: does the cost of a photo grow as the run goes on?
  const marks = [...rssAt].sort((a, b) => a[0] - b[0]).map(([, v]) => v);
  const spans = marks.slice(1).map((m, i) => {
    const photos = m[3] - marks[i][3];
    return `${marks[i][3]}-${m[3]}: ${photos > 0 ? (((m[2] - marks[i][2]) * 1000) / photos).toFixed(1) : '-'} ms CPU, ${photos > 0 ? ((m[4] - marks[i][4]) / photos).toFixed(1) : '-'} ms wall`;
  });
  if (spans.length > 0) console.log(`central per photo, by stretch of the photos: ${spans.join('; ')}`);
  console.log(`peak RSS: laptop ${laptopPeak.toFixed(0)} MB, central ${centralPeak.toFixed(0)} MB`);
  central.server.kill();
  laptop.server.kill();
  // The profiles are written as the processes exit.
  if (prof.length > 0) await new Promise((r) => setTimeout(r, 3000));
  rmSync(path.join(tmp, 'laptop'), { recursive: true, force: true });
  rmSync(path.join(tmp, 'central'), { recursive: true, force: true });
  return visitRow;
}

/** DEVICES devices push BATCHES batches of BATCH visits each, all at once, to `processes` central processes. */
async function manyDevices(processes, round, visitRow) {
  const dataDir = path.join(tmp, `central-many-${processes}`);
  const centrals = [];
  for (let i = 0; i < processes; i++) {
    const c = await spawnServe(dataDir, KEY, ['--role', 'central', '--database', cluster.url]);
    children.push(c.server);
    centrals.push(c);
  }
  const devices = [];
  for (let d = 0; d < DEVICES; d++) devices.push(await call(centrals[0].url, 'POST', '/api/app/v1/devices/', { name: `bench device ${round}-${d}`, role: 'auditor' }));
  const at = new Date().toISOString();
  const t0 = performance.now();
  await Promise.all(devices.map(async (device, d) => {
    const base = centrals[d % centrals.length].url;
    for (let b = 0; b < BATCHES; b++) {
      const changes = [];
      for (let i = 0; i < BATCH; i++) {
        const n = b * BATCH + i + 1;
        const id = createHash('sha1').update(`${round}-${d}-${n}`).digest('hex');
        changes.push({ n, entity: 'visit', id, op: 'upsert', row: { ...visitRow, id, created_at: at, updated_at: at } });
      }
      await call(base, 'POST', '/api/app/v1/sync/push/', { client_time: new Date().toISOString(), last: (b + 1) * BATCH, changes }, device.key, { 'x-sync-protocol': '1' });
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  const peaks = centrals.map((c) => peakMb(c.server.pid).toFixed(0));
  for (const c of centrals) c.server.kill();
  return { seconds, records: DEVICES * BATCHES * BATCH, peaks };
}

/**
 * CPU seconds so far of the central's process, PostgreSQL's processes and this bench's (the devices'
 * clients and the probe reader). A PostgreSQL backend that exits takes its seconds with it (the
 * figure can then even fall): read PostgreSQL's share as a floor.
 */
function officeCpu(centralPid) {
  const of = (pids) => pids.reduce((sum, pid) => {
    try {
      return sum + cpu(pid).reduce((a, b) => a + b, 0);
    } catch {
      return sum; // a backend that ended meanwhile
    }
  }, 0);
  const postmaster = Number(readFileSync(path.join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const own = process.cpuUsage();
  return { central: of(processTree(centralPid)), pg: of(processTree(postmaster)), bench: (own.user + own.system) / 1e6, at: performance.now() };
}

/** Cores each used between two officeCpu snapshots. */
const coresUsed = (a, b) => {
  const s = (b.at - a.at) / 1000;
  return `central ${((b.central - a.central) / s).toFixed(2)}, PostgreSQL ${((b.pg - a.pg) / s).toFixed(2)}, devices' clients ${((b.bench - a.bench) / s).toFixed(2)}`;
};

/**
 * One more office reader beside wrk (which times SKU and visit pages in one histogram): a SKU page and
 * a visit page of 50 in turn, one at a time, timed apart. `stop()` resolves with their latencies (ms).
 */
function pageProbe(url, visits) {
  let stopped = false;
  const skus = [];
  const visitPages = [];
  const done = (async () => {
    for (let i = 0; !stopped; i++) {
      const visit = i % 2 === 1;
      const t = performance.now();
      const r = await fetch(visit ? `${url}/api/v1.5/visits/?limit=50&offset=${Math.floor(Math.random() * Math.max(visits - 50, 1))}` : `${url}/api/v1.5/sku/?limit=50&offset=${Math.floor(Math.random() * (OFFICE_SKUS - 50))}`, { headers: { authorization: `Token ${KEY}` } });
      await r.arrayBuffer();
      if (r.ok) (visit ? visitPages : skus).push(performance.now() - t);
    }
  })();
  const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
  const spread = (xs) => `p50 ${pct(xs, 50).toFixed(1)} p99 ${pct(xs, 99).toFixed(1)} ms (${xs.length})`;
  return async () => {
    stopped = true;
    await done;
    return `SKU pages ${spread(skus)}, visit pages ${spread(visitPages)}`;
  };
}

/** wrk's office load (bench/api.lua) for `seconds`: req/s and latency percentiles (ms). */
function officeWrk(url, seconds, visits) {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', ['-t1', `-c${OFFICE_READERS}`, `-d${seconds}s`, '--latency', '-s', 'bench/api.lua', url], {
      env: { ...process.env, BENCH_MODE: 'office', BENCH_TOKEN: KEY, BENCH_SKUS: String(OFFICE_SKUS), BENCH_VISITS: String(visits) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('exit', () => {
      const m = /WRK_RESULT (\{.*\})/.exec(out);
      if (!m) return reject(new Error(`wrk printed no result:\n${out}`));
      const r = JSON.parse(m[1]);
      resolve({ rps: r.ok2xx / r.seconds, non2xx: r.non2xx + r.bad, p50: r.p50_us / 1000, p99: r.p99_us / 1000, max: r.max_us / 1000 });
    });
  });
}

/** The office reading SKU and visit pages on a central, without pushes and then during DEVICES' pushes. */
async function officeReads() {
  const dbName = 'office';
  cluster.run('psql', ['-h', cluster.dir, '-p', String(cluster.port), '-U', 'postgres', '-c', `CREATE DATABASE ${dbName}`]);
  const dbUrl = cluster.url.replace('/postgres?', `/${dbName}?`);
  const prof = process.env.BENCH_SYNC_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SYNC_PROFILE}`] : [];
  const workers = OFFICE_WORKERS > 1 ? ['--workers', String(OFFICE_WORKERS)] : [];
  const central = await spawnServe(path.join(tmp, 'central-office'), KEY, ['--role', 'central', '--database', dbUrl, ...workers], {}, prof);
  children.push(central.server);
  const base = central.url;
  await call(base, 'POST', '/api/app/v1/import/', {
    brands: [{ id: 'b', name: 'Brand' }],
    categories: [{ id: 'c', name: 'Category' }],
    skus: Array.from({ length: OFFICE_SKUS }, (_, i) => ({ id: `sku-${i}`, name: `Product ${i}`, brand: 'b', category: 'c', ean13: String(4000000000000 + i) })),
  });
  // A visit as the database stores it: the row shape a device pushes.
  await call(base, 'POST', '/api/v1.5/visits/', { id: 'shape', name: 'Visit', shop: 'shop-1', agent: 'agent-1', started_date: new Date().toISOString() });
  const json = cluster.run('psql', ['-h', cluster.dir, '-p', String(cluster.port), '-U', 'postgres', '-d', dbName, '-At', '-c', "SELECT row_to_json(v) FROM visits v WHERE id = 'shape'"]).toString().trim();
  const { data_id: _dataId, ...visitRow } = JSON.parse(json);
  const devices = [];
  for (let d = 0; d < DEVICES; d++) devices.push(await call(base, 'POST', '/api/app/v1/devices/', { name: `office device ${d}`, role: 'auditor' }));
  const at = new Date().toISOString();
  const batch = (d, b) => {
    const changes = [];
    for (let i = 0; i < BATCH; i++) {
      const n = b * BATCH + i + 1;
      const id = createHash('sha1').update(`office-${d}-${n}`).digest('hex');
      changes.push({ n, entity: 'visit', id, op: 'upsert', row: { ...visitRow, id, created_at: at, updated_at: at } });
    }
    return { client_time: new Date().toISOString(), last: (b + 1) * BATCH, changes };
  };
  // A first batch from each: the visit pages have DEVICES x BATCH visits to show.
  await Promise.all(devices.map((device, d) => call(base, 'POST', '/api/app/v1/sync/push/', batch(d, 0), device.key, { 'x-sync-protocol': '1' })));
  const visits = DEVICES * BATCH + 1;
  const load = () => os.loadavg()[0].toFixed(1);
  const c0 = officeCpu(central.server.pid);
  const quietProbe = pageProbe(base, visits);
  const quiet = await officeWrk(base, OFFICE_SECONDS, visits);
  const quietPages = await quietProbe();
  const c1 = officeCpu(central.server.pid);
  const quietLoad = load();
  let pushing = true;
  let pushed = 0;
  const pushes = Promise.all(devices.map(async (device, d) => {
    for (let b = 1; pushing; b++) {
      await call(base, 'POST', '/api/app/v1/sync/push/', batch(d, b), device.key, { 'x-sync-protocol': '1' });
      pushed += BATCH;
    }
  }));
  const t0 = performance.now();
  const c2 = officeCpu(central.server.pid);
  const busyProbe = pageProbe(base, visits);
  const busy = await officeWrk(base, OFFICE_SECONDS, visits);
  const busyPages = await busyProbe();
  const c3 = officeCpu(central.server.pid);
  const pushSeconds = (performance.now() - t0) / 1000;
  const busyLoad = load();
  pushing = false;
  await pushes;
  central.server.kill();
  // The profile is written as the process exits.
  if (prof.length > 0) await new Promise((r) => central.server.once('exit', r));
  const row = (label, r, extra, l) => `| ${label} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} ms | ${r.p99.toFixed(1)} ms | ${r.max.toFixed(0)} ms | ${extra} | ${l} |`;
  console.log(`\n| the office's screens on the central (PostgreSQL, ${OFFICE_WORKERS} process${OFFICE_WORKERS > 1 ? 'es' : ''}): ${OFFICE_READERS} readers, SKU and visit pages of 50 in turn, ${OFFICE_SECONDS} s | req/s | p50 | p99 | max | pushes | load |`);
  console.log('|---|---|---|---|---|---|---|');
  console.log(row('without pushes', quiet, '-', quietLoad));
  console.log(row(`while ${DEVICES} devices push`, busy, `${(pushed / pushSeconds).toFixed(0)} visits/s`, busyLoad));
  const ratio = busy.p99 / quiet.p99;
  console.log(`readers' p99 with pushes / without: ${ratio.toFixed(2)}x (goal: at most 2x)${quiet.non2xx + busy.non2xx ? `; ${quiet.non2xx + busy.non2xx} failed reads` : ''}`);
  // Who had the machine's cores (os.cpus().length) in each phase: wrk's own share is left out.
  console.log(`cores used (of ${os.cpus().length}) without pushes: ${coresUsed(c0, c1)}; while pushing: ${coresUsed(c2, c3)}`);
  console.log(`one more reader, one request at a time, without pushes: ${quietPages}; while pushing: ${busyPages}`);
}

/** CPU seconds (user + system) of several processes. */
const cpuOf = (pids) => pids.reduce((sum, pid) => sum + cpu(pid).reduce((a, b) => a + b, 0), 0);

/**
 * DEVICES devices send DEVICE_PHOTOS distinct photos each, all at once, through 2 central processes
 * (device d to process d % 2), over tus as the laptop does it (create, then the bytes in one PATCH).
 */
async function manyDevicePhotos(store, bases, s3) {
  const dataDir = path.join(tmp, `central-photos-${store}`);
  const env = store === 'bucket' ? s3.env('bench-photos') : {};
  const centrals = [];
  for (let i = 0; i < 2; i++) {
    // Each process its own folder with a bucket (nothing shared on disk); one shared folder without.
    const c = await spawnServe(store === 'bucket' ? `${dataDir}-${i}` : dataDir, KEY, ['--role', 'central', '--database', cluster.url], env);
    children.push(c.server);
    centrals.push(c);
  }
  const devices = [];
  for (let d = 0; d < DEVICES; d++) devices.push(await call(centrals[0].url, 'POST', '/api/app/v1/devices/', { name: `bench photo device ${store}-${d}`, role: 'auditor' }));
  const photos = devices.map((_, d) => Array.from({ length: DEVICE_PHOTOS }, (_, p) => distinct(bases[(d * DEVICE_PHOTOS + p) % bases.length], 1_000_000 * (store === 'bucket' ? 2 : 1) + d * DEVICE_PHOTOS + p)));
  const bytes = photos.flat().reduce((s, p) => s + p.length, 0);
  const gateway = store === 'bucket' ? ['client.rgw', 'osd.0'].map((n) => Number(readFileSync(path.join(s3.dir, 'run', `${n}.pid`), 'utf8'))) : [];
  const pids = centrals.map((c) => c.server.pid);
  const cpu0 = cpuOf(pids);
  const gw0 = cpuOf(gateway);
  const t0 = performance.now();
  await Promise.all(devices.map(async (device, d) => {
    const base = centrals[d % 2].url;
    const headers = { authorization: `Token ${device.key}`, 'x-sync-protocol': '1', 'tus-resumable': '1.0.0' };
    for (const photo of photos[d]) {
      const sha = createHash('sha256').update(photo).digest('hex');
      const meta = `sha256 ${Buffer.from(sha).toString('base64')},ext ${Buffer.from('jpg').toString('base64')}`;
      const created = await fetch(`${base}/api/app/v1/sync/photos/files`, { method: 'POST', headers: { ...headers, 'upload-length': String(photo.length), 'upload-metadata': meta } });
      if (created.status !== 201) throw new Error(`tus create: ${created.status} ${await created.text()}`);
      const location = new URL(created.headers.get('location'), base).href;
      const patched = await fetch(location, { method: 'PATCH', headers: { ...headers, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, body: photo });
      if (patched.status !== 204) throw new Error(`tus PATCH: ${patched.status} ${await patched.text()}`);
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  const count = DEVICES * DEVICE_PHOTOS;
  const centralCpu = cpuOf(pids) - cpu0;
  const gatewayCpu = cpuOf(gateway) - gw0;
  for (const c of centrals) c.server.kill();
  return { seconds, mb: bytes / 1024 / 1024, count, centralMs: (centralCpu * 1000) / count, gatewayMs: gateway.length ? (gatewayCpu * 1000) / count : null };
}

async function photoStores() {
  if (DEVICE_PHOTOS <= 0) return;
  if (!cephInstalled()) {
    console.log('\nmany devices\' photos, file store against bucket: skipped (Ceph is not installed: scripts/setup.mjs --bench)');
    return;
  }
  const bases = await basePhotos();
  const s3 = new CephS3();
  try {
    await s3.start();
    const { S3Client, CreateBucketCommand } = await import('@aws-sdk/client-s3');
    const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
    await client.send(new CreateBucketCommand({ Bucket: 'bench-photos' }));
    client.destroy();
    console.log(`\n| ${DEVICES} devices x ${DEVICE_PHOTOS} photos at once, 2 central processes | wall | MB/s | central CPU per photo | gateway CPU per photo |`);
    console.log('|---|---|---|---|---|');
    for (const store of ['files', 'bucket']) {
      const r = await manyDevicePhotos(store, bases, s3);
      const label = store === 'files' ? 'file store (one shared folder)' : 'S3 bucket (Ceph RADOS gateway, loopback)';
      console.log(`| ${label} | ${r.seconds.toFixed(1)} s | ${(r.mb / r.seconds).toFixed(1)} | ${r.centralMs.toFixed(1)} ms | ${r.gatewayMs === null ? '-' : `${r.gatewayMs.toFixed(1)} ms`} |`);
    }
  } finally {
    s3.stop();
  }
}

try {
  await cluster.start({ max_connections: 300 });
  let visitRow;
  if (VISITS > 0 && (PARTS.includes('laptop') || PARTS.includes('devices'))) visitRow = await laptopPush();
  if (visitRow && PARTS.includes('devices')) {
    console.log(`\n| ${DEVICES} devices pushing at once, ${BATCHES} batches of ${BATCH} visits each | wall | records/s | central peak RSS |`);
    console.log('|---|---|---|---|');
    for (const processes of [1, 2]) {
      const r = await manyDevices(processes, processes, visitRow);
      console.log(`| ${processes} central process${processes > 1 ? 'es' : ''} | ${r.seconds.toFixed(1)} s | ${(r.records / r.seconds).toFixed(0)} | ${r.peaks.join(' + ')} MB |`);
    }
  }
  if (PARTS.includes('office')) await officeReads();
  if (PARTS.includes('photos')) await photoStores();
} finally {
  for (const c of children) c.kill('SIGKILL');
  cluster.stop();
  rmSync(tmp, { recursive: true, force: true });
}
