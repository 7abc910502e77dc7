// The built server analyses scenes on its analysis thread (recognition/analyzer/analysis-thread.ts;
// built JavaScript only: a worker thread cannot load the TypeScript sources). onnxruntime-node runs
// a model synchronously on the thread that calls it, so no model may run on the main thread, whose
// event loop answers every request; the analysis must be the one the pipeline gives in-process; and a
// server that closes while the thread works hands the job back to the queue unfinished; a detector
// the thread cannot load is rolled back; a thread that cannot start leaves the analysis in-process.
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, TestServer } from '../api/harness.js';
import { currentModelPath, installModel, readModelChoice } from '../../main/server/recognition/model-store.js';
import { composeShelf, groceryPackshots, referenceFiles, UPRIGHT } from './fixtures.js';
import { createCatalog, upload, waitForReports } from './helpers.js';

const DIST = path.resolve('dist/main/server');

/** The test harness over the built server instead of the TypeScript sources. */
class BuiltServer extends TestServer {
  override async start(): Promise<this> {
    const { startServer } = await import(path.join(DIST, 'server.js'));
    this.server = await startServer({ dataDir: this.dataDir, port: 0, apiKey: API_KEY, webRoot: undefined });
    return this;
  }
}

// Every inference run by this process's main thread (a worker thread has its own onnxruntime module).
// (InferenceSession is typed as a factory; at run time it is the class of every session.)
let mainThreadRuns = 0;
const sessions = (ort.InferenceSession as unknown as { prototype: ort.InferenceSession }).prototype;
const run = sessions.run;
sessions.run = function (this: ort.InferenceSession, ...args: Parameters<typeof run>) {
  mainThreadRuns++;
  return run.apply(this, args);
} as typeof run;

const LAYOUT: Array<Array<[string, number]>> = [
  [['fanta_pet', 3], ['sprite_pet', 2], ['cocacola_pet', 2]],
  [['cream_soda_pet', 3], ['minute_maid', 4]],
];
const DISTRACTORS = 6;

let t: BuiltServer;
let photo: { id: string };

beforeAll(async () => {
  if (!existsSync(path.join(DIST, 'recognition/analyzer/thread-entry.js'))) throw new Error('dist/ is missing: run `npm run build` (npm test does) before this test');
  t = await new BuiltServer().start();
  await createCatalog(t, UPRIGHT, DISTRACTORS);
  photo = await upload(t, (await composeShelf(LAYOUT)).jpeg, 'shelf.jpg');
}, 180_000);
afterAll(async () => {
  sessions.run = run;
  await t?.close();
});

/** The test's catalog as the pipeline's identifier (built JavaScript), described in this thread. */
async function catalog(): Promise<any> {
  const { describeProduct } = await import(path.join(DIST, 'recognition/identification/describe.js'));
  const { Identifier, PIPELINE_IDENTIFIER } = await import(path.join(DIST, 'recognition/identification/identifier.js'));
  const identifier = new Identifier(PIPELINE_IDENTIFIER);
  const references = [...UPRIGHT.flatMap((p) => referenceFiles(p).map((file) => ({ sku: p, file }))), ...groceryPackshots(DISTRACTORS).map((g) => ({ sku: `grocery-${g.name}`, file: g.file }))];
  for (const [i, r] of references.entries()) identifier.add({ id: String(i), skuId: r.sku, descriptor: await describeProduct(r.file) });
  return identifier;
}

async function photoImage(): Promise<{ id: string; path: string }> {
  const { uploadFilePath } = await import(path.join(DIST, 'domain/uploads.js'));
  return { id: photo.id, path: uploadFilePath(t.dataDir, row('uploads', 'id', photo.id)) };
}

function row(table: string, where: string, value: string): any {
  const db = new Database(path.join(t.dataDir, 'shelf-audit.sqlite'), { readonly: true });
  try {
    return db.prepare(`SELECT * FROM ${table} WHERE ${where} = ?`).get(value);
  } finally {
    db.close();
  }
}

describe('the analysis thread', () => {
  it('runs no model and no OpenCV on the main thread, and finds what the pipeline finds in-process', async () => {
    // Since the catalog's reference images were added (beforeAll: their descriptors), through a
    // recognition with a panorama, to a reviewer's box identified.
    const res = await t.post('/api/v1.5/recognize/', { images: [photo.id], report_types: ['FACING_COUNT', 'PANORAMA'] });
    expect(res.status, res.text).toBe(201);
    const reports = await waitForReports(t, [res.body.reports.FACING_COUNT, res.body.reports.PANORAMA]);
    const report = reports[res.body.reports.FACING_COUNT];
    expect(report.status, JSON.stringify(report)).toBe('READY');
    expect(reports[res.body.reports.PANORAMA].status).toBe('READY');
    const box = JSON.parse(row('scenes', 'id', res.body.scene).analysis).images[0].products.find((p: { sku_id: string }) => p.sku_id === 'minute_maid');
    const suggested = await t.post(`/api/v1.5/scenes/${res.body.scene}/suggestions/`, { image: photo.id, x: (box.x1 + box.x2) / 2, y: (box.y1 + box.y2) / 2, w: box.x2 - box.x1, h: box.y2 - box.y1 });
    expect(suggested.status, suggested.text).toBe(200);
    expect(suggested.body.suggestions[0].sku_id).toBe('minute_maid');
    expect(mainThreadRuns).toBe(0);
    expect(Object.keys(createRequire(import.meta.url).cache).filter((m) => m.includes('opencv'))).toEqual([]);
    expect(report.json.find((r: { sku_id: string }) => r.sku_id === 'minute_maid')?.count).toBe(4);

    // The same photo through the pipeline in this thread, with the same references.
    const { createDetector } = await import(path.join(DIST, 'recognition/detector/index.js'));
    const { analyzeScene } = await import(path.join(DIST, 'recognition/pipeline.js'));
    const detector = await createDetector();
    try {
      // The scene asks for no price report, so the server read no tags: nor does this run.
      const local = await analyzeScene([await photoImage()], { detector, identifier: await catalog() });
      const stored = JSON.parse(row('scenes', 'id', res.body.scene).analysis);
      expect(stored.images).toEqual(local.images);
    } finally {
      await detector.close();
    }
  }, 180_000);

  it.runIf(process.platform === 'linux')('runs the analysis at a lower OS priority than the main thread (Linux: per thread)', async () => {
    const res = await t.post('/api/v1.5/recognize/', { images: [photo.id], report_types: ['FACING_COUNT'] });
    expect(Object.values(await waitForReports(t, [res.body.reports.FACING_COUNT]))[0].status).toBe('READY');
    // Nice values of this process's threads (the built server runs in it): field 19 of /proc/.../stat.
    const nice = (tid: string) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    };
    const threads = readdirSync('/proc/self/task');
    expect(nice(String(process.pid))).toBe(0);
    // The analysis thread and the onnxruntime threads it started.
    expect(threads.filter((t) => nice(t) === 10).length).toBeGreaterThanOrEqual(1);
  }, 180_000);

  it('analyses in-process, and says so, when the thread cannot start', async () => {
    const { AnalysisThread } = await import(path.join(DIST, 'recognition/analyzer/analysis-thread.js'));
    const { SceneAnalyzer } = await import(path.join(DIST, 'recognition/analyzer/scene-analyzer.js'));
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-thread-entry-'));
    const entry = path.join(tmp, 'entry.mjs');
    writeFileSync(entry, "throw new Error('unreadable here');\n");
    const logged: string[] = [];
    const settings = { detectorThreads: 1, identifyThreads: 0, nice: 0 };
    const thread = new AnalysisThread(settings, { entry: pathToFileURL(entry), log: (m: string, e: Error) => logged.push(`${m}: ${e.message}`) });
    const inProcess = new SceneAnalyzer(settings);
    try {
      const identifier = await catalog();
      const image = await photoImage();
      const got = await thread.analyze([image], identifier, { detectorPath: null });
      expect(logged).toEqual([expect.stringMatching(/could not start: the analysis thread did not start: unreadable here/)]);
      expect(got.images).toEqual((await inProcess.analyze([image], identifier, { detectorPath: null })).images);
    } finally {
      await thread.close();
      await inProcess.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 180_000);

  it('hands a job back unfinished when the server closes while the thread works on it', async () => {
    const res = await t.post('/api/v1.5/recognize/', { images: [photo.id], report_types: ['FACING_COUNT'] });
    expect(res.status, res.text).toBe(201);
    const job = () => row('recognition_jobs', 'scene_id', res.body.scene);
    while (job().status !== 'running') await new Promise((r) => setTimeout(r, 5));
    await t.server.close();
    expect(job()).toMatchObject({ status: 'queued', attempts: 0 });
    expect(row('reports', 'id', res.body.reports.FACING_COUNT).status).toBe('NOT_READY');
    // The next start finishes it.
    await t.start();
    const [report] = Object.values(await waitForReports(t, [res.body.reports.FACING_COUNT]));
    expect(report.status).toBe('READY');
  }, 180_000);

  it('rolls back an installed detector the thread cannot load, and finishes the job with the previous one', async () => {
    const detector = path.resolve('models/shelf-detector.onnx');
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-thread-model-'));
    try {
      await installModel(t.dataDir, detector, { version: 'good' });
      const other = path.join(tmp, 'other.onnx');
      writeFileSync(other, Buffer.concat([readFileSync(detector), Buffer.from([0xfa, 0x07, 0x00])]));
      const bad = await installModel(t.dataDir, other, { version: 'goes bad' });
      writeFileSync(currentModelPath(t.dataDir)!, 'corrupted');
      const res = await t.post('/api/v1.5/recognize/', { images: [photo.id], report_types: ['FACING_COUNT'] });
      const [report] = Object.values(await waitForReports(t, [res.body.reports.FACING_COUNT]));
      expect(report.status, JSON.stringify(report)).toBe('READY');
      expect(readModelChoice(t.dataDir)).toMatchObject({ current: { version: 'good' }, refused: expect.arrayContaining([bad.sha256]) });
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 180_000);
});
