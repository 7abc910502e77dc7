// Training from supervisors' corrections, end to end on a tiny case: composed shelves
// recognised and reviewed through the real API, exported by the built CLI, fine-tuned by finetune.py
// (detector) and embedder/finetune.py (product embedder) for a few CPU steps from the shipped models,
// rebuilt from their ONNX files, and the detector installed by `models install`. Nothing here asks the
// networks to learn: a few steps only show that the path works and what it writes.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../api/harness.js';
import { composeShelf } from '../recognition/fixtures.js';
import { createCatalog, upload, waitForReports } from '../recognition/helpers.js';
import { runPython, TRAINING } from './python.js';

const root = path.resolve(import.meta.dirname, '../..');
const cli = (...args: string[]) => promisify(execFile)(process.execPath, [path.join(root, 'dist/main/cli/cli.js'), ...args]);
const SHIPPED = path.join(root, 'models/shelf-detector.onnx');
const SHIPPED_TAGS = path.join(root, 'models/price-tag-detector.onnx');
const SHIPPED_EMBEDDER = path.join(root, 'models/product-embedder.onnx');
const checkExport = (model: string, dir: string) =>
  promisify(execFile)(process.execPath, [path.join(TRAINING, 'check_export.mjs'), model, dir]);
const LAYOUTS: Array<Array<Array<[string, number]>>> = [
  [[['fanta_pet', 3], ['sprite_pet', 2]], [['cocacola_pet', 2]]],
  [[['sprite_pet', 4]], [['cocacola_pet', 2], ['fanta_pet', 1]]],
  [[['cocacola_pet', 3]], [['fanta_pet', 2], ['sprite_pet', 2]]],
];

let tmp: string;
let exportDir: string;
let generated: string;
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
// Few tiny steps, one thread: the figures are not the point here.
const finetune = (...extra: string[]) =>
  runPython(['finetune.py', '--export', exportDir, '--generated', generated, '--steps', '3', '--batch', '2',
    '--size', '128', '--threads', '1', '--log-every', '1', '--holdout', '0.34', ...extra]);

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'finetune-'));
  exportDir = path.join(tmp, 'export');
  generated = path.join(tmp, 'generated');
  const t: TestServer = await startTestServer();
  try {
    await createCatalog(t, ['fanta_pet', 'sprite_pet', 'cocacola_pet'], 0);
    for (const layout of LAYOUTS) {
      const shelf = await composeShelf(layout);
      const photo = await upload(t, shelf.jpeg, 'shelf.jpg');
      const res = await t.post('/api/v1.5/recognize/', { images: [photo.id], report_types: ['REALOGRAM'] });
      expect(res.status, res.text).toBe(201);
      await waitForReports(t, Object.values(res.body.reports));
      // The supervisor's correction: exactly the composed products (the truth), whatever the model found.
      const boxes = shelf.products.map((p) => ({ x: (p.x1 + p.x2) / 2, y: (p.y1 + p.y2) / 2, w: p.x2 - p.x1, h: p.y2 - p.y1, sku_id: p.product }));
      const saved = await t.call('PUT', `/api/v1.5/scenes/${res.body.scene}/annotations/`, { json: { images: [{ image: photo.id, version: 0, boxes }] } });
      expect(saved.status, saved.text).toBe(200);
    }
    const { stdout } = await cli('export-training', '--out', exportDir, '--data-dir', t.dataDir);
    expect(JSON.parse(stdout)).toMatchObject({ scenes: 3, images: 3, annotations: 21 });
  } finally {
    await t.close();
  }
  runPython(['generator.py', generated, '--count', '2', '--seed', '3', '--style', '2', '--procedural-only', '--size', '320x240']);
}, 240_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the shipped models rebuilt in PyTorch from their ONNX files (no checkpoint ships)', () => {
  it("give the ONNX files' own outputs through onnxruntime-node", async () => {
    const detector = path.join(tmp, 'check-detector');
    expect(runPython(['onnx_import.py', SHIPPED, '--check-dir', detector])).toMatch(/mnv2, weights 1\b/);
    expect((await checkExport(SHIPPED, detector)).stdout).toContain('export matches PyTorch');
    // The price-tag model too (train.py --init-onnx continues its training from the file), known by its metadata.
    const tags = path.join(tmp, 'check-tags');
    expect(runPython(['onnx_import.py', SHIPPED_TAGS, '--check-dir', tags])).toMatch(/mnv2-tags, weights 1\b/);
    expect((await checkExport(SHIPPED_TAGS, tags)).stdout).toContain('export matches PyTorch');
    const embedder = path.join(tmp, 'check-embedder');
    runPython(['-c', `
import sys, torch
sys.path.insert(0, 'embedder')
import finetune
from onnx_export import write_check_cases
model, _ = finetune.load_embedder(sys.argv[1])
g = torch.Generator().manual_seed(0)
write_check_cases(model, [torch.rand(n, 3, 96, 96, generator=g) * 255 for n in (1, 3)], ['embedding'], sys.argv[2])`, SHIPPED_EMBEDDER, embedder]);
    expect((await checkExport(SHIPPED_EMBEDDER, embedder)).stdout).toContain('export matches PyTorch');
  }, 120_000);
});

describe('embedder/finetune.py', () => {
  it('fine-tunes the shipped embedder on the SKU crops, and the app embeds with the model it writes', async () => {
    const out = path.join(tmp, 'out-embedder');
    const stdout = runPython(['embedder/finetune.py', '--export', exportDir, '--out', out, '--version', 'ci-e1', '--force',
      '--steps', '3', '--batch', '8', '--synthetic', '4', '--threads', '1', '--log-every', '1', '--holdout', '0.34']);
    expect(stdout).toMatch(/^14 crops of 3 SKUs to train on, 7 held out; 4 drawn packages$/m);
    expect(stdout).toMatch(/held-out top-1 \d\.\d{3} against the base's \d\.\d{3} \(7 crops\); wrote .*product-embedder-ci-e1\.onnx/);
    const model = path.join(out, 'product-embedder-ci-e1.onnx');
    const report = JSON.parse(readFileSync(path.join(out, 'product-embedder-ci-e1.json'), 'utf8'));
    expect(report).toMatchObject({ version: 'ci-e1', written: true, training: { crops: 14, skus: 3, steps: 3 }, base: { sha256: sha256(SHIPPED_EMBEDDER) }, sha256: sha256(model) });
    expect(report.better).toBe(report.new.top1 > report.base.top1);
    // The app's own embedding code, pointed at the new file as the SHELF_EMBEDDER_MODEL setting does.
    const script = `
const { embed, embeddingInput, embedderModelVersion, setShippedEmbedder } = await import('./dist/main/server/recognition/identification/embedding.js');
const { serverSettings } = await import('./dist/main/server/config/config.js');
setShippedEmbedder(serverSettings().embedderModel);
const [v] = await embed([await embeddingInput(process.argv[1])]);
console.log(JSON.stringify({ version: embedderModelVersion(), length: v.length, norm: Math.hypot(...v) }));`;
    const r = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, path.join(exportDir, 'images', '1.jpg')],
      { cwd: root, env: { ...process.env, SHELF_EMBEDDER_MODEL: model } });
    const e = JSON.parse(r.stdout);
    expect(e.version).toContain(report.sha256.slice(0, 12));
    expect(e.length).toBe(128);
    expect(e.norm).toBeCloseTo(1, 4);
  }, 120_000);
});

describe('finetune.py', () => {
  it('fine-tunes the shipped model on an export, and the model it writes installs and detects', async () => {
    const out = path.join(tmp, 'out');
    const stdout = finetune('--out', out, '--version', 'ci-1', '--force');
    expect(stdout).toMatch(/^step 3 /m);
    expect(stdout).toMatch(/held-out AP50 \d\.\d{3} against the base's \d\.\d{3} \(1 photos\); wrote .*shelf-detector-ci-1\.onnx/);
    const model = path.join(out, 'shelf-detector-ci-1.onnx');
    const report = JSON.parse(readFileSync(path.join(out, 'shelf-detector-ci-1.json'), 'utf8'));
    expect(report).toMatchObject({
      version: 'ci-1',
      written: true,
      held_out: { photos: 1, objects: 7 },
      training: { photos: 2, generated_scenes: 2, steps: 3, seed: 0 },
      base: { sha256: sha256(SHIPPED) },
      sha256: sha256(model),
    });
    expect(report.new.AP50).toBeGreaterThanOrEqual(0);
    expect(report.new.AP50).toBeLessThanOrEqual(1);
    expect(report.better).toBe(report.new.AP50 > report.base.AP50);
    expect(report.sha256).not.toBe(report.base.sha256); // trained: not the shipped bytes again

    // Into use on a "laptop", the shipped one kept to roll back to.
    const dataDir = path.join(tmp, 'laptop');
    mkdirSync(dataDir);
    await cli('models', 'install', model, '--version', 'ci-1', '--data-dir', dataDir);
    const list = (await cli('models', 'list', '--data-dir', dataDir)).stdout;
    expect(list).toMatch(/current: ci-1 /);
    expect(list).toMatch(/previous: the shipped model/);
    // And it runs through the app's detector, with the score cut the base carried.
    const photo = path.join(exportDir, 'images', '1.jpg');
    const det = await promisify(execFile)(process.execPath, [path.join(root, 'dist/main/cli/detect.js'), '--json', '--model', model, photo]);
    expect(JSON.parse(det.stdout)).toMatchObject({ image: photo, boxes: expect.any(Array) });
  }, 120_000);

  it('writes nothing when the new model does not beat the base, and says so with the figures', () => {
    const out = path.join(tmp, 'out-not-better');
    // A gain of more than 1 in AP50 is impossible, so this run can never be better.
    const stdout = finetune('--out', out, '--version', 'ci-2', '--min-gain', '1');
    expect(stdout).toMatch(/not better, nothing written: held-out AP50 \d\.\d{3} against the base's \d\.\d{3}/);
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  }, 120_000);

  it('the same seed holds out the same scene; another seed may hold out another', () => {
    // One Python run for every split: importing torch is most of a run's time.
    const splits: Array<[string[], string[]]> = JSON.parse(runPython(['-c', `
import json, sys, review_export as finetune
photos = finetune.read_export(sys.argv[1])
out = []
for seed in [0, 0, 1, 2, 3, 4, 5]:
    train, held = finetune.split_scenes(photos, 0.34, seed)
    out.append([[p['scene'] for p in train], [p['scene'] for p in held]])
print(json.dumps(out))`, exportDir]));
    const [a, again, ...others] = splits;
    expect(again).toEqual(a);
    expect(a[0]).toHaveLength(2);
    expect(a[1]).toHaveLength(1);
    expect(a[0]).not.toContain(a[1][0]);
    expect(new Set([a[1][0], ...others.map((s) => s[1][0])]).size).toBeGreaterThan(1);
  }, 60_000);

  it('refuses an export it cannot split, with exit status 2 and a reason', () => {
    const one = path.join(tmp, 'one-scene');
    mkdirSync(path.join(one, 'images'), { recursive: true });
    const coco = JSON.parse(readFileSync(path.join(exportDir, 'annotations.json'), 'utf8'));
    coco.images = coco.images.slice(0, 1);
    coco.annotations = coco.annotations.filter((a: any) => a.image_id === coco.images[0].id);
    writeFileSync(path.join(one, 'annotations.json'), JSON.stringify(coco));
    expect(() => runPython(['finetune.py', '--export', one, '--generated', generated, '--out', path.join(tmp, 'x')]))
      .toThrow(/exited 2:\nfinetune: the export holds 1 reviewed scene\(s\): at least 2 are needed/);
    expect(() => runPython(['finetune.py', '--export', path.join(tmp, 'nowhere'), '--generated', generated, '--out', path.join(tmp, 'x')]))
      .toThrow(/exited 2:\nfinetune: .*annotations\.json not found/);
  }, 120_000);
});
