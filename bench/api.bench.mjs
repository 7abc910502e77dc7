// API throughput on the real server over loopback: GET /api/v1.5/sku/ (a page of 100 out of 10,000
// SKUs; the same page, then every request another one so the page cache misses) and
// POST /api/v1.5/brands/, 50 connections for 10 s each (autocannon). The server runs in its
// own process (the built `serve` CLI) so the load generator does not share its event loop.
// Env: API_BENCH_SECONDS (default 10), API_BENCH_CONNECTIONS (default 50), API_BENCH_SKUS (10000).
import autocannon from 'autocannon';
import { spawnServe } from './serve-process.mjs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const seconds = Number(process.env.API_BENCH_SECONDS ?? 10);
const connections = Number(process.env.API_BENCH_CONNECTIONS ?? 50);
const skuCount = Number(process.env.API_BENCH_SKUS ?? 10_000);
const KEY = 'bench-key-0123456789abcdefghijklmnopqrstuvwxyz';
const GOAL = 5000;

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-bench-'));
const { server, url } = await spawnServe(dataDir, KEY);
/**
 * CPU seconds the server process has used (Linux /proc; null elsewhere). On a shared machine wall-clock
 * throughput depends on what else runs; CPU time per request does much less.
 */
function serverCpuSeconds() {
  try {
    const fields = readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    return null;
  }
}
const headers = { authorization: `Token ${KEY}`, 'content-type': 'application/json' };

try {
  // Seed through the import endpoint: brands, categories and 10,000 SKUs in one transaction.
  const doc = {
    brands: Array.from({ length: 50 }, (_, i) => ({ id: `brand-${i}`, name: `Brand ${i}` })),
    categories: Array.from({ length: 20 }, (_, i) => ({ id: `cat-${i}`, name: `Category ${i}` })),
    skus: Array.from({ length: skuCount }, (_, i) => ({
      id: `sku-${String(i).padStart(5, '0')}`, cid: `C${i}`, ean13: String(4000000000000 + i), name: `Product ${i} 0.5 l`,
      brand: `brand-${i % 50}`, category: `cat-${i % 20}`, size_x_mm: 65, size_y_mm: 205, size_z_mm: 65, attributes: { package: 'pet' },
    })),
  };
  let t = performance.now();
  const seeded = await fetch(`${url}/api/app/v1/import/`, { method: 'POST', headers, body: JSON.stringify(doc) });
  if (seeded.status !== 200) throw new Error(`seeding failed: ${seeded.status} ${await seeded.text()}`);
  console.log(`seeded ${skuCount} SKUs through POST /api/app/v1/import/ in ${((performance.now() - t) / 1000).toFixed(2)} s`);

  const page = await (await fetch(`${url}/api/v1.5/sku/?limit=100&offset=5000`, { headers })).json();
  if (page.count !== skuCount || page.results.length !== 100) throw new Error('unexpected list page');

  const run = async (opts) => {
    const cpu0 = serverCpuSeconds();
    const result = await new Promise((resolve, reject) => autocannon({ url, connections, duration: seconds, headers, ...opts }, (e, r) => (e ? reject(e) : resolve(r))));
    const cpu1 = serverCpuSeconds();
    result.serverCpuPerRequestUs = cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) * 1e6) / result.requests.total;
    return result;
  };
  const report = (label, r) => {
    const ok = r['2xx'];
    const bad = r.non2xx + r.errors + r.timeouts;
    console.log(`${label}: ${r.requests.average.toFixed(0)} req/s (mean), p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ` +
      `${(r.throughput.average / 1024 / 1024).toFixed(1)} MiB/s, ${ok} ok, ${bad} failed, ${connections} connections, ${seconds} s`);
    if (r.serverCpuPerRequestUs !== null) {
      console.log(`  server CPU ${r.serverCpuPerRequestUs.toFixed(0)} µs per request (one free core would serve ~${(1e6 / r.serverCpuPerRequestUs).toFixed(0)} req/s)`);
    }
    return r.requests.average;
  };

  // Warm-up (JIT, SQLite page cache), then the measured runs.
  await new Promise((resolve, reject) => autocannon({ url: `${url}/api/v1.5/sku/?limit=100`, connections: 10, duration: 2, headers }, (e, r) => (e ? reject(e) : resolve(r))));
  // Calibration: the cheapest route, to tell this machine's speed at the moment from the API's cost.
  report('GET /health (calibration)', await run({ url: `${url}/health` }));
  const list = report('GET /api/v1.5/sku/?limit=100&offset=5000 (page of 100 of 10,000)', await run({ url: `${url}/api/v1.5/sku/?limit=100&offset=5000` }));
  console.log(`  goal ${GOAL} req/s: ${list >= GOAL ? 'met' : 'NOT met'} on ${os.cpus().length} CPU(s), load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  // Every request a different page (offsets 0..9899), so the list page cache never hits: the cost of
  // building a page from the database.
  let n = 0;
  report('GET /api/v1.5/sku/?limit=100&offset=<each request another> (page cache missed)', await run({
    url: `${url}/api/v1.5/sku/`,
    requests: [{ setupRequest: (req) => ({ ...req, path: `/api/v1.5/sku/?limit=100&offset=${n++ % (skuCount - 100)}` }) }],
  }));
  report('POST /api/v1.5/brands/', await run({ method: 'POST', path: '/api/v1.5/brands/', body: JSON.stringify({ name: 'Bench brand' }), url: `${url}/api/v1.5/brands/` }));
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.on('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
