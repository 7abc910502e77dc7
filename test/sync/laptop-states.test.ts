// The laptop's sync states that a central's refusals bring, and its backoff, as real processes: a
// laptop (`serve --central`) and a central (`serve --role central`, SQLite) with a proxy between them
// that can move the laptop's clock (the pull's client_time, two hours ahead), announce an older sync
// protocol (the header), or drop every connection. The refusals are the real central's; the laptop
// must say `clock_skew` and `outdated`, recover when the cause is gone, and, while the central is
// unreachable, retry with exponential backoff and full jitter (each wait drawn between 50 ms and a
// ceiling that doubles per failure, up to the maximum).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { ServeProcesses, listeningUrl } from '../serve-listening.js';

const KEY = 'laptop-states-key-0123456789abcdefghij';
const BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2000;
// No interval rounds during the test: each round is one the test caused, or a retry.
const processes = new ServeProcesses(KEY, { SHELF_AUDIT_SYNC_INTERVAL_MS: '600000', SHELF_AUDIT_SYNC_BACKOFF_MS: String(BACKOFF_MS), SHELF_AUDIT_SYNC_MAX_BACKOFF_MS: String(MAX_BACKOFF_MS) });
const serve = (args: string[]) => processes.start(args);

afterAll(() => processes.closeAll());

async function call(base: string, method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(base + p, { method, headers: { authorization: `Token ${KEY}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return res.json();
}

it('says clock_skew and outdated as the central refuses, recovers, and backs off with full jitter while it is unreachable', async () => {
  const central = serve(['--role', 'central']);
  const centralUrl = await listeningUrl(central);
  const device = await call(centralUrl, 'POST', '/api/app/v1/devices/', { name: 'states laptop', role: 'auditor' });

  let mode: 'pass' | 'skew' | 'old' | 'drop' = 'pass';
  const dropped: number[] = [];
  const proxy = http.createServer((req, res) => {
    if (mode === 'drop') {
      dropped.push(Date.now());
      req.socket.destroy();
      return;
    }
    const target = new URL(req.url!, centralUrl);
    const headers = { ...req.headers };
    if (mode === 'skew' && target.searchParams.has('client_time')) target.searchParams.set('client_time', new Date(Date.now() + 2 * 3600_000).toISOString());
    if (mode === 'old') headers['x-sync-protocol'] = '0';
    const upstream = http.request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => req.socket.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  try {
    const laptop = serve(['--central', proxyUrl, '--device-key', device.key]);
    const url = await listeningUrl(laptop);
    const run = () => call(url, 'POST', '/api/app/v1/sync/run/');
    expect((await run()).state).toBe('idle');

    // The central refuses the laptop's clock (409 clock_skew): said so, retried only after the maximum wait.
    mode = 'skew';
    const skewed = await run();
    expect(skewed.state, skewed.message).toBe('clock_skew');
    expect(skewed.message).toMatch(/clock/i);
    expect(Date.parse(skewed.next_attempt) - Date.now()).toBeGreaterThan(MAX_BACKOFF_MS - 1000);
    mode = 'pass';
    expect((await run()).state).toBe('idle');

    // The central refuses an older protocol (426): said so.
    mode = 'old';
    const old = await run();
    expect(old.state).toBe('outdated');
    expect(old.message).toMatch(/update the app/);
    mode = 'pass';
    expect((await run()).state).toBe('idle');

    // Unreachable: every connection dropped. Settings saved again start the count of failures at 0.
    mode = 'drop';
    const ATTEMPTS = 8;
    expect((await fetch(`${url}/api/app/v1/sync/settings/`, { method: 'PUT', headers: { authorization: `Token ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ central_url: proxyUrl }) })).status).toBe(200);
    const deadline = Date.now() + 40_000;
    while (dropped.length < ATTEMPTS) {
      if (Date.now() > deadline) throw new Error(`only ${dropped.length} attempts in 40 s: ${JSON.stringify(dropped.map((t) => t - dropped[0]))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await call(url, 'GET', '/api/app/v1/sync/status/')).state).toBe('offline');
    // The wait after failure f is drawn from [50 ms, min(max, base * 2^f)]: within it (plus scheduling
    // slack), spread over it (not always the ceiling: jitter), and growing with the failures.
    const waits = dropped.slice(1, ATTEMPTS).map((t, i) => ({ wait: t - dropped[i], ceiling: Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** (i + 1)) }));
    const shown = JSON.stringify(waits);
    for (const w of waits) {
      expect(w.wait, shown).toBeGreaterThanOrEqual(45);
      expect(w.wait, shown).toBeLessThanOrEqual(w.ceiling + 400);
    }
    const ratios = waits.map((w) => w.wait / w.ceiling);
    expect(Math.min(...ratios), shown).toBeLessThan(0.75);
    const mean = ratios.reduce((a, b) => a + b, 0) / ratios.length;
    expect(Math.sqrt(ratios.reduce((a, r) => a + (r - mean) ** 2, 0) / ratios.length), shown).toBeGreaterThan(0.05);
    const avg = (ws: typeof waits) => ws.reduce((a, w) => a + w.wait, 0) / ws.length;
    expect(avg(waits.slice(-4)), shown).toBeGreaterThan(2 * avg(waits.slice(0, 2)));
  } finally {
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
  }
}, 90_000);
