// The desktop host's responsiveness while recognition works: 20 recognitions at once
// (POST /recognize, FACING_COUNT, one shelf photo each), with the server
//  a) in this process, sharing the main process's event loop (the HTTP side only: the analysis itself
//     runs on a worker thread, recognition/analyzer/), for comparison, and
//  b) in its own process (dist/main/cli/server-process.js, forked as the app forks its utilityProcess),
// while this process, standing for Electron's main process (windows, menus, IPC), measures its own
// event-loop delay (perf_hooks.monitorEventLoopDelay, 1 ms resolution) and polls /health every 50 ms.
// Goal: the main process's event-loop delay p99 under 20 ms.
// Env: HOST_BENCH_JOBS (default 20), SHARED_DATA.
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startServer } from '../dist/main/server/server.js';

const DATA = path.resolve(process.env.SHARED_DATA ?? '../shared/data');
const jobs = Number(process.env.HOST_BENCH_JOBS ?? 20);
const photo = readFileSync(path.join(DATA, 'shelf-photos', 'test_1079.jpg'));
const KEY = 'bench-key-0123456789abcdefghijklmnopqrstuvwxyz';
const GOAL_P99_MS = 20;

async function recognizeAll(url, token) {
  const headers = { authorization: `Token ${token}` };
  const form = new FormData();
  form.append('datafile', new Blob([photo], { type: 'image/jpeg' }), 'shelf.jpg');
  const up = await (await fetch(`${url}/api/v1.5/uploads/`, { method: 'POST', headers, body: form })).json();
  // Warm the models first, so both runs measure recognition, not the models' loading.
  await runJobs(url, headers, up.id, 1);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const health = [];
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const t = performance.now();
      await fetch(`${url}/health`);
      health.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  delay.enable();
  const t0 = performance.now();
  await runJobs(url, headers, up.id, jobs);
  const seconds = (performance.now() - t0) / 1000;
  delay.disable();
  polling = false;
  await poll;
  health.sort((a, b) => a - b);
  const q = (p) => health[Math.min(health.length - 1, Math.floor(p * health.length))];
  return { seconds, p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6, healthP50: q(0.5), healthP99: q(0.99), healthMax: health.at(-1) };
}

async function runJobs(url, headers, upload, n) {
  const ids = [];
  for (const r of await Promise.all(
    Array.from({ length: n }, () =>
      fetch(`${url}/api/v1.5/recognize/`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ images: [upload], report_types: ['FACING_COUNT'] }) }).then((res) => res.json()),
    ),
  )) ids.push(r.reports.FACING_COUNT);
  const deadline = Date.now() + 600_000;
  for (const id of ids) {
    for (;;) {
      const report = await (await fetch(`${url}/api/v1.5/reports/${id}/`, { headers })).json();
      if (report.status !== 'NOT_READY') break;
      if (Date.now() > deadline) throw new Error('reports still NOT_READY after 10 minutes');
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

const results = {};
{
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-host-a-'));
  const server = await startServer({ dataDir, port: 0, apiKey: KEY });
  try {
    results['server in the main process'] = await recognizeAll(server.url, KEY);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
{
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-host-b-'));
  const child = fork('dist/main/cli/server-process.js', [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const ready = await new Promise((resolve, reject) => {
    child.on('message', (m) => (m.type === 'ready' ? resolve(m) : m.type === 'failed' && reject(new Error(m.message))));
    child.send({ type: 'start', dataDir, port: 0, owner: 'desktop app' });
  });
  try {
    results['server in its own process'] = await recognizeAll(ready.url, ready.token);
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.send({ type: 'stop' });
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(`${jobs} concurrent recognitions (FACING_COUNT, one shelf photo each)`);
console.log('                                      main-process event-loop delay       /health latency        wall');
console.log('                                        p50      p99      max            p50      p99      max');
const ms = (v) => `${v.toFixed(1)} ms`.padStart(9);
for (const [name, r] of Object.entries(results)) {
  console.log(`${name.padEnd(38)}${ms(r.p50)}${ms(r.p99)}${ms(r.max)}      ${ms(r.healthP50)}${ms(r.healthP99)}${ms(r.healthMax)}   ${r.seconds.toFixed(1)} s`);
}
const now = results['server in its own process'];
console.log(`goal: main-process event-loop delay p99 < ${GOAL_P99_MS} ms: ${now.p99 < GOAL_P99_MS ? 'met' : 'NOT met'} (${now.p99.toFixed(1)} ms)`);
