// The screens with a real-sized catalog: 50,000 SKUs, 500 planograms (20 records each), 100 displays
// and must-have lists, 1,000 visits, one of them with finished reports naming 60 SKUs. Each screen is
// measured three ways, each in Debian's Chromium (Playwright) with a fresh browser profile (no saved
// copies, nothing in the HTTP cache):
// - in app: the app is already open (on the settings screen) and the screen is asked for: the time to
//   its first rows on screen, the API requests it made and the bytes it downloaded (encoded, as they
//   crossed the wire). Goal: under 500 ms and 200 KB.
// - open, fresh server: the server has just started (the one the bench seeded is stopped and a new one
//   started on the same data folder), and a new page navigates straight to the screen: from navigation
//   start (the page's timeOrigin) to its first rows, so the bundle, the page's start and the server's
//   first answers all count. Goal: under 1 s.
// - open, warm server: the same, once more on that server. Goal: under 600 ms.
// Env: SCREENS_BENCH_SKUS (default 50000), SCREENS_BENCH_PLANOGRAMS (500), SCREENS_BENCH_VISITS (1000),
// SCREENS_BENCH_ONLY (screens whose name contains this text), SCREENS_BENCH_REPEAT (times each screen
// is measured each way, default 1; the median and the worst are printed: a busy machine makes single
// figures noisy), SCREENS_BENCH_TRACE=1 (each screen's requests, in time order; an open's phases),
// SCREENS_BENCH_OPEN=0 (the in-app figures only).
// Last, the desktop app's path as far as it runs under Node: the server process forked as the app
// forks it (main/cli/server-process.js, Node's fork standing in for Electron's utilityProcess) until
// it says ready, then the SKU screen opened on it with the window's session key.
import { chromium } from '@playwright/test';
import Database from 'better-sqlite3';
import { spawnServe } from './serve-process.mjs';
import { SERVER_NODE_FLAGS } from '../dist/main/host/v8-heap.js';
import { startServerProcess } from '../dist/main/electron/server-host.js';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const skuCount = Number(process.env.SCREENS_BENCH_SKUS ?? 50_000);
const planogramCount = Number(process.env.SCREENS_BENCH_PLANOGRAMS ?? 500);
const visitCount = Number(process.env.SCREENS_BENCH_VISITS ?? 1000);
const KEY = 'bench-key-0123456789abcdefghijklmnopqrstuvwxyz';
const GOAL_MS = 500;
const GOAL_BYTES = 200 * 1024;
const OPEN_COLD_GOAL_MS = 1000;
const OPEN_WARM_GOAL_MS = 600;

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-screens-'));
let { server, url } = await spawnServe(dataDir, KEY);
const headers = { authorization: `Token ${KEY}`, 'content-type': 'application/json' };
const pad = (i, n = 5) => String(i).padStart(n, '0');

/**
 * Visits through the API; one visit gets a scene with READY reports written straight into the data
 * directory (recognition is not what is measured here), naming 60 SKUs spread over the catalog.
 */
async function seedVisits() {
  for (let i = 0; i < visitCount; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, visitCount - i) }, (_, k) => {
        const n = i + k;
        const body = { id: `visit-${pad(n)}`, shop: `shop-${n % 40}`, shop_name: `Shop ${n % 40}`, agent: `agent-${n % 25}`, started_date: new Date(Date.UTC(2026, 0, 1) + n * 3_600_000).toISOString() };
        return fetch(`${url}/api/v1.5/visits/`, { method: 'POST', headers, body: JSON.stringify(body) }).then((r) => {
          if (r.status !== 201) throw new Error(`visit ${n}: ${r.status}`);
        });
      }),
    );
  }
  const visit = `visit-${pad(visitCount - 1)}`;
  const plan = (await (await fetch(`${url}/api/v1.5/planogram_records/?planogram=planogram-000&limit=100`, { headers })).json()).results;
  const mhl = (await (await fetch(`${url}/api/v1.5/mhl_record/?musthavelist=mhl-000&limit=100`, { headers })).json()).results;
  const found = Array.from({ length: 60 }, (_, i) => `sku-${pad((i * 797) % skuCount)}`);
  const json = {
    FACING_COUNT: found.map((sku_id, i) => ({ sku_id, count: 1 + (i % 4) })),
    SHARE_OF_SPACE: found.map((sku_id) => ({ sku_id, share_of_count: 1 / 60, share_of_space: 1 / 60 })),
    PLANOGRAM_COMPLIANCE: {
      planogram: 'planogram-000', display: 'display-000', compliance: 0.5, expected_faces: plan.length, correct_faces: plan.length / 2,
      positions: plan.map((r, i) => ({
        planogram_record: r.id, rack_index: r.rack_index, shelf_index: r.shelf_index, product_index: r.product_index, sku_id: r.sku,
        expected_facings: 1, found_facings: i % 2, found_sku_ids: i % 2 ? [r.sku] : [], status: i % 2 ? 'ok' : 'missing',
      })),
      extra: [], actions: [],
    },
    MHL_COMPLIANCE: { musthavelist: 'mhl-000', compliance: 0.5, records: mhl.map((r, i) => ({ mhl_record_id: r.id, compliant: i % 2 === 0, found_sku_id: i % 2 === 0 ? r.sku : null })) },
  };
  const db = new Database(path.join(dataDir, 'shelf-audit.sqlite'));
  db.pragma('busy_timeout = 5000');
  const at = new Date().toISOString();
  db.prepare('insert into scenes (id, request_id, visit_id, display_id, images, options, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)').run(
    'bench-scene', 'bench-scene', visit, 'display-000', '[]', '{}', at, at,
  );
  const report = db.prepare("insert into reports (id, scene_id, visit_id, report_type, status, json, created_at, updated_at) values (?, 'bench-scene', ?, ?, 'READY', ?, ?, ?)");
  for (const [type, body] of Object.entries(json)) report.run(`bench-${type}`, visit, type, JSON.stringify(body), at, at);
  db.close();
  return visit;
}

let browser;
try {
  const displays = Math.max(1, Math.round(planogramCount / 5));
  const doc = {
    brands: Array.from({ length: 50 }, (_, i) => ({ id: `brand-${i}`, name: `Brand ${i}` })),
    categories: Array.from({ length: 20 }, (_, i) => ({ id: `cat-${i}`, name: `Category ${i}` })),
    skus: Array.from({ length: skuCount }, (_, i) => ({
      id: `sku-${pad(i)}`, cid: `C${i}`, ean13: String(4000000000000 + i), name: `Product ${pad(i)} 0.5 l`,
      brand: `brand-${i % 50}`, category: `cat-${i % 20}`, size_x_mm: 65, size_y_mm: 205, size_z_mm: 65,
    })),
    displays: Array.from({ length: displays }, (_, i) => ({ id: `display-${pad(i, 3)}`, name: `Display ${pad(i, 3)}` })),
    planograms: Array.from({ length: planogramCount }, (_, p) => ({
      id: `planogram-${pad(p, 3)}`, name: `Planogram ${pad(p, 3)}`, display: `display-${pad(p % displays, 3)}`,
      records: Array.from({ length: 20 }, (_, r) => ({
        sku: `sku-${pad((p * 20 + r) % skuCount)}`, rack_index: 0, shelf_index: Math.floor(r / 5), product_index: r, facing_x: 1, facing_y: 1,
      })),
    })),
    mhls: Array.from({ length: displays }, (_, m) => ({
      id: `mhl-${pad(m, 3)}`, name: `Must-have ${pad(m, 3)}`, display: `display-${pad(m, 3)}`,
      records: Array.from({ length: 20 }, (_, r) => ({ sku: `sku-${pad((m * 37 + r) % skuCount)}` })),
    })),
  };
  let t = performance.now();
  const seeded = await fetch(`${url}/api/app/v1/import/`, { method: 'POST', headers, body: JSON.stringify(doc) });
  if (seeded.status !== 200) throw new Error(`seeding failed: ${seeded.status} ${await seeded.text()}`);
  console.log(
    `seeded ${skuCount} SKUs, ${planogramCount} planograms (${planogramCount * 20} records), ${displays} displays and MHLs in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  t = performance.now();
  const reviewed = await seedVisits();
  console.log(`seeded ${visitCount} visits, one with finished reports, in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  const screens = [
    // `rows`/`also` for Playwright; `seen`: the same in CSS and text, matched in the page as it changes.
    { name: 'SKUs', hash: '#/catalog/sku', rows: 'table[aria-label="SKUs"] tbody tr a' },
    { name: 'Brands', hash: '#/catalog/brands', rows: 'table[aria-label="Brands"] tbody tr td' },
    { name: 'Displays, planograms, MHLs', hash: '#/displays', rows: 'table[aria-label="Planograms"] tbody tr a' },
    { name: 'Planogram editor', hash: `#/planograms/planogram-${pad(planogramCount - 1, 3)}`, rows: '[aria-label="Rack 1 shelf 1"] [role="listitem"]', also: '.sku-palette li' },
    { name: 'Must-have list', hash: '#/mhl/mhl-000', rows: 'table[aria-label="Must-have products"] tbody tr' },
    { name: 'Visits', hash: '#/visits', rows: 'table[aria-label="Visits"] tbody tr a' },
    { name: 'New visit', hash: '#/visits/new', rows: 'option:has-text("Display 000")', seen: [{ css: 'option', text: 'Display 000' }] },
    // First rows: the facing counts with the products' names (not their ids), and the compliance grid.
    {
      name: 'Visit with reports',
      hash: `#/visits/${reviewed}`,
      rows: 'table[aria-label="Facing counts"] tbody tr:first-child td:has-text("Product ")',
      also: '[aria-label="Expected, rack 1 shelf 1"] li:has-text("Product ")',
      seen: [
        { css: 'table[aria-label="Facing counts"] tbody tr:first-child td', text: 'Product ' },
        { css: '[aria-label="Expected, rack 1 shelf 1"] li', text: 'Product ' },
      ],
    },
  ];
  for (const screen of screens) screen.seen ??= [{ css: screen.rows }, ...(screen.also ? [{ css: screen.also }] : [])];
  const results = [];
  const only = process.env.SCREENS_BENCH_ONLY;
  const repeat = Math.max(1, Number(process.env.SCREENS_BENCH_REPEAT ?? 1));
  const measured = screens.filter((screen) => !only || screen.name.includes(only));
  const runs = measured.flatMap((screen) => Array.from({ length: repeat }, () => screen));
  const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
  console.log(`load average before measuring: ${load()}`);
  for (const screen of runs) {
    // A fresh profile per screen: no saved copies in IndexedDB, nothing in the HTTP cache.
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    let bytes = 0;
    let requests = 0;
    cdp.on('Network.loadingFinished', (e) => (bytes += e.encodedDataLength));
    const timeline = [];
    cdp.on('Network.requestWillBeSent', (e) => {
      if (e.request.url.includes('/api/')) requests++;
      if (process.env.SCREENS_BENCH_TRACE) timeline.push(`${(performance.now() - t).toFixed(0)} ms  sent ${e.requestId} ${e.request.url.replace(url, '').slice(0, 90)}`);
    });
    if (process.env.SCREENS_BENCH_TRACE) cdp.on('Network.loadingFinished', (e) => timeline.push(`${(performance.now() - t).toFixed(0)} ms  done ${e.requestId}`));
    // The app opens on the settings screen, so no measured screen (the visits list is the default) has
    // loaded anything before it is asked for. The key is where a `#token=` link leaves it.
    await context.addInitScript((key) => sessionStorage.setItem('shelf-audit.token', key), KEY);
    await page.goto(`${url}/#/settings`);
    await page.waitForSelector('nav a', { timeout: 60_000 });
    await page.waitForLoadState('networkidle');
    bytes = 0;
    requests = 0;
    t = performance.now();
    await page.evaluate((hash) => (location.hash = hash), screen.hash);
    try {
      // Options of a closed select are never "visible": being in the page is what counts.
      await page.waitForSelector(screen.rows, { timeout: 60_000, state: 'attached' });
      if (screen.also) await page.waitForSelector(screen.also, { timeout: 60_000, state: 'attached' });
    } catch (error) {
      console.log(`${screen.name}: no first rows in 60 s (${error.message.split('\n')[0]})`);
      results.push({ name: screen.name, firstRowsMs: Infinity, firstBytes: bytes, bytes, requests });
      await context.close();
      continue;
    }
    const firstRowsMs = performance.now() - t;
    const firstBytes = bytes;
    // What the screen goes on to fetch (pictures, names) once its rows are up.
    await page.waitForLoadState('networkidle');
    await new Promise((r) => setTimeout(r, 300));
    results.push({ name: screen.name, firstRowsMs, firstBytes, bytes, requests });
    if (process.env.SCREENS_BENCH_TRACE) console.log(`${screen.name} (first rows at ${firstRowsMs.toFixed(0)} ms):\n  ${timeline.join('\n  ')}`);
    await context.close();
  }

  /**
   * A new page navigated straight to the screen: milliseconds from its navigation start (timeOrigin) to
   * the first rows, with the phases the page's own timings give (the scripts in, the load event, the
   * first API request sent and answered).
   */
  async function openScreen(screen, token = KEY) {
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    try {
      await context.addInitScript((key) => sessionStorage.setItem('shelf-audit.token', key), token);
      // The first rows' time taken in the page, as the DOM changes (a MutationObserver's callback runs
      // before the next paint): Playwright's polling, and its round trips to this busy process, would
      // add their own delay.
      await context.addInitScript((seen) => {
        const found = () => seen.every((q) => [...document.querySelectorAll(q.css)].some((e) => !q.text || e.textContent.includes(q.text)));
        const observer = new MutationObserver(() => {
          if (window.__firstRowsAt === undefined && found()) {
            window.__firstRowsAt = performance.now();
            observer.disconnect();
          }
        });
        observer.observe(document, { childList: true, subtree: true, characterData: true });
      }, screen.seen);
      const page = await context.newPage();
      await page.goto(`${url}/${screen.hash}`, { waitUntil: 'commit' });
      await page.waitForSelector(screen.rows, { timeout: 60_000, state: 'attached' });
      if (screen.also) await page.waitForSelector(screen.also, { timeout: 60_000, state: 'attached' });
      const done = Date.now();
      await page.waitForFunction(() => window.__firstRowsAt !== undefined, null, { timeout: 10_000 });
      const phases = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const resources = performance.getEntriesByType('resource');
        const scripts = resources.filter((r) => r.initiatorType === 'script' || r.name.endsWith('.js'));
        const api = resources.filter((r) => r.name.includes('/api/'));
        return {
          origin: performance.timeOrigin,
          inPage: window.__firstRowsAt,
          scriptsMs: Math.max(0, ...scripts.map((r) => r.responseEnd)),
          loadMs: nav ? nav.loadEventStart : 0,
          firstApiMs: api.length ? Math.min(...api.map((r) => r.startTime)) : 0,
          api: api.map((r) => `${r.name.replace(location.origin, '').slice(0, 70)} ${r.startTime.toFixed(0)}-${r.responseEnd.toFixed(0)}`),
        };
      });
      return { ms: phases.inPage, polled: done - phases.origin, ...phases };
    } finally {
      await context.close();
    }
  }

  async function restartServer() {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    ({ server, url } = await spawnServe(dataDir, KEY));
  }

  const opens = [];
  if (process.env.SCREENS_BENCH_OPEN !== '0') {
    for (const screen of runs) {
      await restartServer();
      const loadCold = load();
      const cold = await openScreen(screen).catch((error) => ({ ms: Infinity, error }));
      const loadWarm = load();
      const warm = await openScreen(screen).catch((error) => ({ ms: Infinity, error }));
      opens.push({ name: screen.name, cold, warm });
      if (cold.error || warm.error) console.log(`${screen.name}: no first rows on opening (${(cold.error ?? warm.error).message.split('\n')[0]})`);
      if (process.env.SCREENS_BENCH_TRACE) {
        for (const [how, r, l] of [['fresh', cold, loadCold], ['warm', warm, loadWarm]]) {
          console.log(
            `open ${screen.name}, ${how} server (load ${l}): first rows ${r.ms?.toFixed(0)} ms (seen by Playwright at ${r.polled?.toFixed(0)}); scripts in ${r.scriptsMs?.toFixed(0)}, load event ${r.loadMs?.toFixed(0)}, first API request ${r.firstApiMs?.toFixed(0)}\n  ${(r.api ?? []).join('\n  ')}`,
          );
        }
      }
    }
  }

  const desktop = [];
  if (process.env.SCREENS_BENCH_OPEN !== '0') {
    const sku = screens[0];
    for (let i = 0; i < repeat; i++) {
      const loadAt = load();
      const t0 = performance.now();
      const child = fork('dist/main/cli/server-process.js', [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [...SERVER_NODE_FLAGS] });
      const adapter = {
        postMessage: (m) => void child.send(m),
        on: (event, listener) => void child.on(event, event === 'exit' ? (code) => listener(code ?? 1) : listener),
        kill: () => child.kill(),
      };
      const quiet = { info() {}, warn() {}, error: console.error };
      const hosted = await startServerProcess({ fork: () => adapter, dataDir, port: 0, log: quiet });
      const readyMs = performance.now() - t0;
      const saved = url;
      url = hosted.url;
      let opened;
      try {
        opened = (await openScreen(sku, hosted.token)).ms;
      } finally {
        url = saved;
        await hosted.close();
      }
      desktop.push({ readyMs, opened, loadAt });
      if (process.env.SCREENS_BENCH_TRACE) console.log(`desktop path (load ${loadAt}): server process ready ${readyMs.toFixed(0)} ms, then SKU first rows ${opened.toFixed(0)} ms`);
    }
  }

  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
  const worst = (values) => Math.max(...values);
  const ms = (v) => `${v.toFixed(0)} ms`;
  console.log('\nin app: the app open on another screen, then this one');
  console.log('screen                        first rows   bytes to first rows   bytes in all   API requests');
  const byScreen = new Map();
  for (const r of results) byScreen.set(r.name, [...(byScreen.get(r.name) ?? []), r]);
  for (const [name, rs] of byScreen) {
    const r = { name, firstRowsMs: median(rs.map((x) => x.firstRowsMs)), firstBytes: median(rs.map((x) => x.firstBytes)), bytes: median(rs.map((x) => x.bytes)), requests: median(rs.map((x) => x.requests)) };
    const ok = r.firstRowsMs < GOAL_MS && r.bytes < GOAL_BYTES ? 'ok' : 'OVER GOAL';
    console.log(
      `${r.name.padEnd(30)}${`${r.firstRowsMs.toFixed(0)} ms`.padStart(10)}${`${(r.firstBytes / 1024).toFixed(1)} KB`.padStart(22)}${`${(r.bytes / 1024).toFixed(1)} KB`.padStart(15)}${String(r.requests).padStart(15)}   ${ok}`,
    );
  }
  console.log(`goal: first rows < ${GOAL_MS} ms and < ${GOAL_BYTES / 1024} KB downloaded per screen (${skuCount} SKUs, ${planogramCount} planograms)`);
  if (opens.length) {
    console.log(`\nopening the app on the screen: navigation start to first rows in the page (median / worst of ${repeat}), in app: median above`);
    console.log('screen                         in app   fresh server (median / worst)   warm server (median / worst)');
    const byOpen = new Map();
    for (const o of opens) byOpen.set(o.name, [...(byOpen.get(o.name) ?? []), o]);
    for (const [name, os_] of byOpen) {
      const inApp = median((byScreen.get(name) ?? []).map((x) => x.firstRowsMs));
      const cold = os_.map((o) => o.cold.ms);
      const warm = os_.map((o) => o.warm.ms);
      const ok = median(cold) < OPEN_COLD_GOAL_MS && median(warm) < OPEN_WARM_GOAL_MS ? 'ok' : 'OVER GOAL';
      console.log(
        `${name.padEnd(30)}${(inApp === undefined ? '-' : ms(inApp)).padStart(8)}${`${ms(median(cold))} / ${ms(worst(cold))}`.padStart(32)}${`${ms(median(warm))} / ${ms(worst(warm))}`.padStart(31)}   ${ok}`,
      );
    }
    console.log(`goal: first rows on opening < ${OPEN_COLD_GOAL_MS} ms with a freshly started server, < ${OPEN_WARM_GOAL_MS} ms with a warm one`);
  }
  if (desktop.length) {
    const ready = desktop.map((d) => d.readyMs);
    const opened = desktop.map((d) => d.opened);
    const total = desktop.map((d) => d.readyMs + d.opened);
    console.log(
      `\ndesktop path under Node (median / worst of ${desktop.length}): server process forked to ready ${ms(median(ready))} / ${ms(worst(ready))}; ` +
        `then SKU first rows ${ms(median(opened))} / ${ms(worst(opened))}; in all ${ms(median(total))} / ${ms(worst(total))}`,
    );
  }
  console.log(`load average after measuring: ${load()}`);
} finally {
  await browser?.close();
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
