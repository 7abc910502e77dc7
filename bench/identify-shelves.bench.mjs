// Shelf-level identification with packshot references, as a new user meets it: through the real
// server and its HTTP API, SKUs are created with the catalog's e-commerce packshots as their only
// references (../shared/data/shelf-recognition-exam/models), then each real shelf photo (scenes/) is
// recognised (detector + identifier) and its facings per SKU compared with the counts made by eye
// (bench/identify-shelves.counts.json; the images are never committed).
// Per scene: SKU counts exact and within 1 (over the SKUs on the shelf and any SKU answered that is
// not), facings identified correctly, false identifications (facings given an SKU that is not there,
// or more of one than there are), unknown rate, time per photo. Thresholds are chosen on the "choice"
// half of the scenes; the figures that count are the "report" half's.
// Then learning from corrections: a supervisor's boxes for one photo of a shelf are saved through
// PUT /scenes/{id}/annotations/, and other photos of the same shelf recognised again.
// CPU per photo is the whole process's
// (server, analysis thread, helpers) from POST /recognize to FACING_COUNT READY: comparable between
// runs on a busy machine where wall times are not.
// Env: SHARED_DATA; IDENTIFY_SHELVES_VERBOSE=1 prints each scene's counts; IDENTIFY_SHELVES_HALVES=choice
// runs the choice half only (for choosing, without looking at the report half).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer } from '../dist/main/server/server.js';
import { apiClient } from './recognition-scene.mjs';

const DATA = path.resolve(process.env.SHARED_DATA ?? '../shared/data', 'shelf-recognition-exam');
const truth = JSON.parse(readFileSync(new URL('./identify-shelves.counts.json', import.meta.url), 'utf8'));
const verbose = process.env.IDENTIFY_SHELVES_VERBOSE === '1';
const KEY = 'bench-key-0123456789abcdefghijklmnopqrstuvwxyz';
const sceneFile = (name) => path.join(DATA, 'scenes', name.startsWith('h') ? `${name}.jpg` : `${name}.png`);

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-identify-shelves-'));
const server = await startServer({ dataDir, port: 0, apiKey: KEY });
const client = apiClient(server.url, KEY);
const { api, upload } = client;

/** Recognises one photo; answers its boxes (x1..y2, sku_id) and the time until FACING_COUNT was READY. */
async function recognize(name) {
  const up = await upload(readFileSync(sceneFile(name)));
  const t = performance.now();
  const c = process.cpuUsage();
  const rec = await api('POST', '/api/v1.5/recognize/', { images: [up.id], display: 'bench', report_types: ['FACING_COUNT'] });
  await ready(rec.reports.FACING_COUNT);
  const ms = performance.now() - t;
  const used = process.cpuUsage(c);
  const cpu = (used.user + used.system) / 1000;
  const ann = await api('GET', `/api/v1.5/scenes/${rec.scene}/annotations/`);
  return { scene: rec.scene, image: ann.images[0], ms, cpu };
}

async function ready(report) {
  for (;;) {
    const r = await api('GET', `/api/v1.5/reports/${report}/`);
    if (r.status === 'ERROR') throw new Error(r.error);
    if (r.status === 'READY') return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Compares a photo's boxes with the counts by eye. */
function score(name, boxes) {
  const expected = truth.scenes[name];
  const predicted = {};
  for (const b of boxes) if (b.sku_id !== null) predicted[b.sku_id] = (predicted[b.sku_id] ?? 0) + 1;
  const range = (s) => {
    const v = expected[s];
    return v === undefined ? [0, 0] : Array.isArray(v) ? v : [v, v];
  };
  let skus = 0;
  let exact = 0;
  let within1 = 0;
  let facings = 0;
  let correct = 0;
  let falseIds = 0;
  const lines = [];
  for (const s of new Set([...Object.keys(expected), ...Object.keys(predicted)])) {
    const [lo, hi] = range(s);
    const n = predicted[s] ?? 0;
    // The count by eye most favourable to the answer within its range.
    const t = Math.min(hi, Math.max(lo, n));
    if (hi === 0 && n === 0) continue;
    skus++;
    if (n >= lo && n <= hi) exact++;
    if (n >= lo - 1 && n <= hi + 1) within1++;
    facings += t;
    correct += Math.min(n, t);
    falseIds += Math.max(0, n - hi);
    lines.push(`${s}:${n}/${lo === hi ? lo : `${lo}-${hi}`}`);
  }
  const unknown = boxes.filter((b) => b.sku_id === null).length;
  return { name, skus, exact, within1, facings, correct, falseIds, boxes: boxes.length, unknown, lines };
}

function summary(label, rows) {
  const sum = (k) => rows.reduce((a, r) => a + r[k], 0);
  const pct = (a, b) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`);
  const meanExact = rows.reduce((a, r) => a + r.exact / Math.max(1, r.skus), 0) / rows.length;
  const meanWithin = rows.reduce((a, r) => a + r.within1 / Math.max(1, r.skus), 0) / rows.length;
  const ms = rows.map((r) => r.ms).sort((a, b) => a - b);
  const cpu = rows.reduce((a, r) => a + r.cpu, 0) / rows.length;
  console.log(
    `${label}: ${rows.length} photos | SKU counts exact ${pct(sum('exact'), sum('skus'))} (mean per photo ${(100 * meanExact).toFixed(1)}%), ` +
      `within 1 ${pct(sum('within1'), sum('skus'))} (mean per photo ${(100 * meanWithin).toFixed(1)}%) | facings identified ${pct(sum('correct'), sum('facings'))} of ${sum('facings')} | ` +
      `false identifications ${sum('falseIds')} = ${pct(sum('falseIds'), sum('facings'))} of facings | unknown ${pct(sum('unknown'), sum('boxes'))} of ${sum('boxes')} boxes | ` +
      `median ${ms[Math.floor(ms.length / 2)].toFixed(0)} ms per photo (FACING_COUNT READY), CPU ${cpu.toFixed(0)} ms per photo (mean, the whole process)`,
  );
}

try {
  console.log(`${os.availableParallelism()} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  await api('POST', '/api/v1.5/displays/', { id: 'bench', name: 'bench display' });
  let t = performance.now();
  let refs = 0;
  for (const [sku, models] of Object.entries(truth.references)) {
    await api('POST', '/api/v1.5/sku/', { id: sku, name: truth.skus[sku] });
    for (const m of models) {
      const up = await upload(readFileSync(path.join(DATA, 'models', `${m}.jpg`)));
      await api('POST', `/api/v1.5/sku/${sku}/images/`, { image: up.id });
      refs++;
    }
  }
  console.log(`catalog: ${Object.keys(truth.references).length} SKUs, ${refs} packshots added in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  // Warm-up recognitions (models loaded, JIT), not counted: a close-up and a dense shelf, whose
  // contested look-alikes load the OCR models, once per process.
  await recognize('e1');
  await recognize('h2');
  const results = {};
  const halves = (process.env.IDENTIFY_SHELVES_HALVES ?? 'choice,report').split(',');
  for (const half of halves) {
    const rows = [];
    for (const name of truth.halves[half]) {
      const r = await recognize(name);
      const s = { ...score(name, r.image.boxes), ms: r.ms, cpu: r.cpu };
      rows.push(s);
      results[name] = s;
      if (verbose) {
        console.log(`  ${name}: ${s.boxes} boxes, ${s.unknown} unknown, exact ${s.exact}/${s.skus}, within 1 ${s.within1}/${s.skus}, ` +
          `facings ${s.correct}/${s.facings}, false ${s.falseIds}, ${s.ms.toFixed(0)} ms | ${s.lines.join(' ')}`);
      }
    }
    summary(`${half} half`, rows);
  }

  // Learning from the shelf: the second photos before any correction, then after the supervisor's
  // (its second photos are of the report half).
  if (halves.includes('report')) await learning(results, refs);
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}

async function learning(results, refs) {
  const before = [];
  const after = [];
  for (const step of truth.learning) for (const name of step.then) before.push(results[name]);
  for (const step of truth.learning) {
    const first = await recognize(step.correct);
    const boxes = step.boxes.map(([x1, y1, x2, y2, sku]) => ({ x: (x1 + x2) / 2, y: (y1 + y2) / 2, w: x2 - x1, h: y2 - y1, sku_id: sku }));
    const saved = await api('PUT', `/api/v1.5/scenes/${first.scene}/annotations/`, { images: [{ image: first.image.image, version: first.image.version, boxes }] });
    for (const id of Object.values(saved.reports)) await ready(id);
    for (const name of step.then) {
      const r = await recognize(name);
      const s = { ...score(name, r.image.boxes), ms: r.ms, cpu: r.cpu };
      after.push(s);
      if (verbose) console.log(`  after correcting ${step.correct}: ${name}: facings ${s.correct}/${s.facings}, false ${s.falseIds} | ${s.lines.join(' ')}`);
    }
  }
  const references = (await api('GET', '/api/v1.5/sku_images/?limit=1000')).count;
  summary('second photos of a shelf, before any correction', before);
  summary(`second photos of a shelf, after correcting one photo of it (${references - refs} references added by the review)`, after);
}
