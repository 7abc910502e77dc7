// Installed models (recognition/model-store.ts): checked before use, the previous kept, rollback; a
// broken install is refused, and so is a price-tag model installed as the shelf detector or the reverse;
// the worker takes a new model up between jobs and falls back to the previous one when the installed file
// no longer loads (the detector, the embedder, the price-tag model); the CLI's models commands.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../api/harness.js';
import { ModelError, currentModelPath, findsPriceTags, installModel, readModelChoice, rollbackModel, sha256OfFile } from '../../main/server/recognition/model-store.js';
import { composeShelf, referenceFiles } from './fixtures.js';
import { createSku, upload, waitForReports } from './helpers.js';

const root = path.resolve(import.meta.dirname, '../..');
const DETECTOR = path.join(root, 'models/shelf-detector.onnx');
const EMBEDDER = path.join(root, 'models/product-embedder.onnx');
const TAGS = path.join(root, 'models/price-tag-detector.onnx');
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-models-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('model store', () => {
  it('installs a checked model, keeps the previous one and rolls back', async () => {
    const data = tempDir();
    expect(currentModelPath(data)).toBeNull();
    const first = await installModel(data, DETECTOR, { version: 'detector v2' });
    expect(first.sha256).toBe(await sha256OfFile(DETECTOR));
    expect(currentModelPath(data)).toMatch(/shelf-detector-[0-9a-f]{16}\.onnx$/);
    expect(readFileSync(currentModelPath(data)!).equals(readFileSync(DETECTOR))).toBe(true);
    // A second, different but valid model: the same weights with a trailing protobuf field that
    // onnxruntime skips (field 127, empty), so another checksum.
    const other = path.join(tempDir(), 'other.onnx');
    writeFileSync(other, Buffer.concat([readFileSync(DETECTOR), Buffer.from([0xfa, 0x07, 0x00])]));
    const second = await installModel(data, other, { version: 'detector v3' });
    expect(readModelChoice(data)).toMatchObject({ current: { version: 'detector v3', sha256: second.sha256 }, previous: { version: 'detector v2' } });
    await rollbackModel(data);
    expect(readModelChoice(data)).toMatchObject({ current: { version: 'detector v2' }, previous: null });
    await rollbackModel(data);
    expect(currentModelPath(data)).toBeNull();
    await expect(rollbackModel(data)).rejects.toThrow(ModelError);
  });

  it('refuses a file that is not a detector, or not a model, or not what its checksum says, and installs nothing', async () => {
    const data = tempDir();
    await expect(installModel(data, EMBEDDER)).rejects.toThrow(/not a shelf detector/);
    const junk = path.join(tempDir(), 'junk.onnx');
    writeFileSync(junk, 'not a model');
    await expect(installModel(data, junk)).rejects.toThrow(/cannot load/);
    await expect(installModel(data, DETECTOR, { expectedSha256: '0'.repeat(64) })).rejects.toThrow(/checksum mismatch/);
    expect(currentModelPath(data)).toBeNull();
    expect(readModelChoice(data).refused).toEqual(expect.arrayContaining([await sha256OfFile(EMBEDDER), await sha256OfFile(junk)]));
  });

  it('installs an embedder as its own kind, checked by embedding an image', async () => {
    const data = tempDir();
    await expect(installModel(data, DETECTOR, { kind: 'embedder' })).rejects.toThrow(/not a product embedder/);
    const installed = await installModel(data, EMBEDDER, { kind: 'embedder', version: 'embedder v2' });
    expect(currentModelPath(data, 'embedder')).toMatch(/product-embedder-[0-9a-f]{16}\.onnx$/);
    expect(currentModelPath(data, 'detector')).toBeNull();
    expect(readModelChoice(data, 'embedder').current).toMatchObject({ version: 'embedder v2', sha256: installed.sha256 });
    await rollbackModel(data, { kind: 'embedder' });
    expect(currentModelPath(data, 'embedder')).toBeNull();
  });

  it('keeps the price-tag model apart from the shelf detector, whose inputs and outputs it shares', async () => {
    const data = tempDir();
    await expect(installModel(data, TAGS)).rejects.toThrow(/not a shelf detector: its metadata says it finds price tags/);
    await expect(installModel(data, DETECTOR, { kind: 'tags' })).rejects.toThrow(/not a price-tag detector: its metadata says it finds products/);
    expect(currentModelPath(data)).toBeNull();
    const installed = await installModel(data, TAGS, { kind: 'tags', version: 'tags v2' });
    expect(currentModelPath(data, 'tags')).toMatch(/price-tag-detector-[0-9a-f]{16}\.onnx$/);
    expect(readFileSync(currentModelPath(data, 'tags')!).equals(readFileSync(TAGS))).toBe(true);
    expect(readModelChoice(data, 'tags').current).toMatchObject({ version: 'tags v2', sha256: installed.sha256 });
    expect(currentModelPath(data, 'detector')).toBeNull();
    await rollbackModel(data, { kind: 'tags' });
    expect(currentModelPath(data, 'tags')).toBeNull();
  });

  it('tells a tag model by its metadata: `finds`, else an mnv2-tags arch (files exported before `finds`)', () => {
    expect(findsPriceTags({ finds: 'price tags', arch: 'mnv2' })).toBe(true);
    expect(findsPriceTags({ finds: 'products', arch: 'mnv2-tags' })).toBe(false);
    expect(findsPriceTags({ arch: 'mnv2-tags', steps: '602' })).toBe(true);
    expect(findsPriceTags({ arch: 'ensemble of mnv2-tags runs/a.pt x0.5, mnv2-tags runs/b.pt x0.5' })).toBe(true);
    expect(findsPriceTags({ arch: 'mnv2' })).toBe(false);
    expect(findsPriceTags({ arch: 'ensemble of mnv2 a.pt x1' })).toBe(false);
    expect(findsPriceTags({})).toBe(false);
  });

  it('the CLI installs, lists and rolls back', () => {
    const data = tempDir();
    const cli = (...args: string[]) => spawnSync(process.execPath, [path.join(root, 'dist/main/cli/cli.js'), 'models', ...args, '--data-dir', data], { encoding: 'utf8' });
    const installed = cli('install', DETECTOR, '--version', 'from the CLI');
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stdout).toMatch(/installed from the CLI/);
    expect(cli('list').stdout).toMatch(/current: from the CLI sha256:[0-9a-f]{64}/);
    const refused = cli('install', EMBEDDER);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/not a shelf detector/);
    expect(cli('rollback').stdout).toMatch(/the shipped model/);
    expect(execFileSync(process.execPath, [path.join(root, 'dist/main/cli/cli.js'), 'models', 'list', '--data-dir', data], { encoding: 'utf8' })).toMatch(/current: the shipped model/);
  });
});

describe('the recognition worker and installed models', () => {
  let t: TestServer;
  let photo: string;
  beforeAll(async () => {
    t = await startTestServer();
    await createSku(t, 'fanta_pet', referenceFiles('fanta_pet'));
    photo = (await upload(t, (await composeShelf([[['fanta_pet', 3]]])).jpeg)).id;
  }, 120_000);
  afterAll(async () => t?.close());

  const facings = async () => {
    const r = await t.post('/api/v1.5/recognize/', { images: [photo], report_types: ['FACING_COUNT'] });
    expect(r.status, r.text).toBe(201);
    const [report] = Object.values(await waitForReports(t, [r.body.reports.FACING_COUNT]));
    return report;
  };

  it('uses an installed model from the next job, and falls back to the previous when it no longer loads', async () => {
    expect((await facings()).status).toBe('READY');
    await installModel(t.dataDir, DETECTOR, { version: 'installed' });
    expect((await t.get('/api/app/v1/info/')).body.model_version).toMatch(/^shelf-detector-[0-9a-f]{16} sha256:/);
    expect((await facings()).status).toBe('READY');
    // A newer model is installed and its file goes bad: the next job rolls back to the one before
    // (and refuses the bad one) and still finishes.
    const sha = readModelChoice(t.dataDir).current!.sha256;
    const other = path.join(tempDir(), 'other.onnx');
    writeFileSync(other, Buffer.concat([readFileSync(DETECTOR), Buffer.from([0xfa, 0x07, 0x00])]));
    const next = await installModel(t.dataDir, other, { version: 'next' });
    writeFileSync(currentModelPath(t.dataDir)!, 'corrupted too');
    const report = await facings();
    expect(report.status, JSON.stringify(report)).toBe('READY');
    const choice = readModelChoice(t.dataDir);
    expect(choice.current?.sha256).toBe(sha);
    expect(choice.refused).toContain(next.sha256);
  }, 180_000);

  it('takes up an installed embedder between jobs (references re-embedded) and rolls back one that does not load', async () => {
    const shipped = (await t.get('/api/app/v1/info/')).body.embedder_version;
    const copy = path.join(tempDir(), 'embedder.onnx');
    writeFileSync(copy, Buffer.concat([readFileSync(EMBEDDER), Buffer.from([0xfa, 0x07, 0x00])]));
    await installModel(t.dataDir, copy, { kind: 'embedder', version: 'embedder v2' });
    const report = await facings();
    expect(report.status, JSON.stringify(report)).toBe('READY');
    // Same weights under another checksum: the product is still found, with references embedded again.
    expect(report.json.find((r: { sku_id: string | null }) => r.sku_id === 'fanta_pet')?.count).toBeGreaterThan(0);
    const now = (await t.get('/api/app/v1/info/')).body.embedder_version;
    expect(now).toMatch(/^product-embedder-[0-9a-f]{16} sha256:/);
    expect(now).not.toBe(shipped);
    // A newer one whose file is broken: the next job goes back to "embedder v2" and still finishes.
    const broken = path.join(tempDir(), 'broken.onnx');
    writeFileSync(broken, Buffer.concat([readFileSync(EMBEDDER), Buffer.from([0xfa, 0x07, 0x01, 0x00])]));
    const bad = await installModel(t.dataDir, broken, { kind: 'embedder', version: 'embedder v3' });
    writeFileSync(currentModelPath(t.dataDir, 'embedder')!, 'corrupted');
    expect((await facings()).status).toBe('READY');
    expect(readModelChoice(t.dataDir, 'embedder')).toMatchObject({ current: { version: 'embedder v2' } });
    expect(readModelChoice(t.dataDir, 'embedder').refused).toContain(bad.sha256);
  }, 180_000);

  it('reads prices with an installed price-tag model from the next job, and rolls back one that no longer loads', async () => {
    const priceTags = async () => {
      const r = await t.post('/api/v1.5/recognize/', { images: [photo], report_types: ['PRICE_TAGS'] });
      expect(r.status, r.text).toBe(201);
      const [report] = Object.values(await waitForReports(t, [r.body.reports.PRICE_TAGS]));
      return report;
    };
    const shipped = (await t.get('/api/app/v1/info/')).body.tag_model_version;
    expect(shipped).toMatch(/^price-tag-detector sha256:[0-9a-f]{12}$/);
    // The shipped weights under another checksum, installed as the tag model.
    const copy = path.join(tempDir(), 'tags.onnx');
    writeFileSync(copy, Buffer.concat([readFileSync(TAGS), Buffer.from([0xfa, 0x07, 0x00])]));
    const installed = await installModel(t.dataDir, copy, { kind: 'tags', version: 'tags v2' });
    expect((await t.get('/api/app/v1/info/')).body.tag_model_version).toMatch(/^price-tag-detector-[0-9a-f]{16} sha256:/);
    expect((await priceTags()).status).toBe('READY');
    // A newer one whose file goes bad: the next job that reads prices goes back to "tags v2", refuses the
    // bad one and still finishes.
    const broken = path.join(tempDir(), 'broken-tags.onnx');
    writeFileSync(broken, Buffer.concat([readFileSync(TAGS), Buffer.from([0xfa, 0x07, 0x01, 0x00])]));
    const bad = await installModel(t.dataDir, broken, { kind: 'tags', version: 'tags v3' });
    writeFileSync(currentModelPath(t.dataDir, 'tags')!, 'corrupted');
    const report = await priceTags();
    expect(report.status, JSON.stringify(report)).toBe('READY');
    expect(readModelChoice(t.dataDir, 'tags')).toMatchObject({ current: { version: 'tags v2', sha256: installed.sha256 } });
    expect(readModelChoice(t.dataDir, 'tags').refused).toContain(bad.sha256);
  }, 180_000);
});
