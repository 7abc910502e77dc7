// POST /recognize's validation and bookkeeping, reports listing and force_update, and the
// recognition-error / out-of-stock-reason messages, through the real API.
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../api/harness.js';
import { composeShelf, referenceFiles } from './fixtures.js';
import { createSku, upload, waitForReports } from './helpers.js';

let t: TestServer;
let photo: string;

beforeAll(async () => {
  t = await startTestServer();
  await createSku(t, 'fanta_pet', referenceFiles('fanta_pet'));
  photo = (await upload(t, (await composeShelf([[['fanta_pet', 2]]])).jpeg)).id;
  expect((await t.post('/api/v1.5/displays/', { id: 'd1', name: 'display' })).status).toBe(201);
}, 120_000);
afterAll(async () => t?.close());

describe('POST /recognize validation', () => {
  it('answers 400 for unknown images, display, visit, report types, and PLANOGRAM/MHL without a display', async () => {
    const before = t.snapshot();
    const cases: Array<[unknown, Record<string, unknown>]> = [
      [{ images: ['nope'] }, { images: ['Invalid pk "nope" - object does not exist.'] }],
      [{ images: [photo], display: 'ghost' }, { display: ['Invalid pk "ghost" - object does not exist.'] }],
      [{ images: [photo], visit: 'ghost' }, { visit: ['Invalid pk "ghost" - object does not exist.'] }],
      [{ images: [photo], report_types: ['FACING_COUNT', 'MAGIC'] }, { report_types: [expect.stringMatching(/^"MAGIC" is not a valid choice/)] }],
      [{ images: [photo], report_types: ['PLANOGRAM_COMPLIANCE'] }, { display: ['A display is required for PLANOGRAM_COMPLIANCE.'] }],
      [{ images: [photo], report_types: ['MHL_COMPLIANCE', 'FACING_COUNT'] }, { display: ['A display is required for MHL_COMPLIANCE.'] }],
      [{}, { images: ['This list may not be empty.'] }],
      [{ images: [photo], datetime: 'yesterday' }, { datetime: [expect.stringMatching(/^Datetime has wrong format/)] }],
      [{ images: 'x'.repeat(300) }, { images: [expect.any(String)] }],
    ];
    for (const [body, errors] of cases) {
      const res = await t.post('/api/v1.5/recognize/', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(errors);
    }
    expect(t.snapshot()).toEqual(before);
  });

  it('needs a token', async () => {
    expect((await t.post('/api/v1.5/recognize/', { images: [photo] }, { token: null })).status).toBe(401);
  });

  it('takes form bodies (repeated keys), the misspelt counry_code, and adds to a named visit', async () => {
    const first = await t.call('POST', '/api/v1.5/recognize/', { form: { images: [photo], report_types: ['FACING_COUNT', 'SHARE_OF_SPACE'], counry_code: 'SE' } });
    expect(first.status, first.text).toBe(201);
    expect(Object.keys(first.body.reports).sort()).toEqual(['FACING_COUNT', 'SHARE_OF_SPACE']);
    const second = await t.post('/api/v1.5/recognize/', { images: [photo], visit: first.body.visit, display: 'd1', datetime: '2026-11-20T10:00:00Z' });
    expect(second.status).toBe(201);
    expect(second.body.visit).toBe(first.body.visit);
    expect(second.body.display).toBe('d1');
    expect(second.body.scene).not.toBe(first.body.scene);
    const ids = [...Object.values(first.body.reports), ...Object.values(second.body.reports)] as string[];
    const done = await waitForReports(t, ids);
    for (const r of Object.values(done)) expect(r.status).toBe('READY');
    const list = await t.get(`/api/v1.5/reports/?visit=${first.body.visit}`);
    expect(list.body.count).toBe(3);
    const byScene = await t.get(`/api/v1.5/reports/?scene=${second.body.scene}&report_type=FACING_COUNT`);
    expect(byScene.body.results.map((r: any) => r.id)).toEqual([second.body.reports.FACING_COUNT]);
    expect(byScene.body.results[0]).toMatchObject({ visit: first.body.visit, scene: second.body.scene, previous_report: null, error: null });
    expect((await t.get('/api/v1.5/reports/nope/')).status).toBe(404);
  });

  it('ends a report ERROR with a message when its display has no planogram', async () => {
    const res = await t.post('/api/v1.5/recognize/', { images: [photo], display: 'd1', report_types: ['PLANOGRAM_COMPLIANCE', 'FACING_COUNT'] });
    expect(res.status).toBe(201);
    const done = await waitForReports(t, Object.values(res.body.reports));
    expect(done[res.body.reports.PLANOGRAM_COMPLIANCE]).toMatchObject({ status: 'ERROR', error: 'Display "d1" has no planogram.', json: null });
    expect(done[res.body.reports.FACING_COUNT].status).toBe('READY');
  });

  it("scores the display's current planogram and MHL, the ones the display shows", async () => {
    await t.post('/api/v1.5/displays/', { id: 'd-two', name: 'two planograms' });
    for (const id of ['pg-first', 'pg-second']) {
      expect((await t.post('/api/v1.5/planograms/', { id, name: id, display: 'd-two' })).status).toBe(201);
      await t.post('/api/v1.5/planogram_records/', { planogram: id, sku: 'fanta_pet', rack_index: 0, shelf_index: 0, product_index: 0 });
    }
    for (const id of ['mhl-first', 'mhl-second']) {
      expect((await t.post('/api/v1.5/mhl/', { id, name: id, display: 'd-two' })).status).toBe(201);
      await t.post('/api/v1.5/mhl_record/', { musthavelist: id, sku: 'fanta_pet' });
    }
    const scored = async () => {
      const res = await t.post('/api/v1.5/recognize/', { images: [photo], display: 'd-two', report_types: ['PLANOGRAM_COMPLIANCE', 'MHL_COMPLIANCE'] });
      expect(res.status, res.text).toBe(201);
      const done = await waitForReports(t, Object.values(res.body.reports));
      return { planogram: done[res.body.reports.PLANOGRAM_COMPLIANCE].json.planogram, musthavelist: done[res.body.reports.MHL_COMPLIANCE].json.musthavelist };
    };
    const shown = async () => {
      const d = (await t.get('/api/v1.5/displays/d-two/')).body;
      return { planogram: d.planogram, musthavelist: d.musthavelist };
    };
    // Unset: the display shows, and the reports score, the same (newest) ones.
    const first = await scored();
    expect(first).toEqual(await shown());
    expect(first).toEqual({ planogram: 'pg-second', musthavelist: 'mhl-second' });
    // Chosen: the reports follow the display's choice.
    expect((await t.patch('/api/v1.5/displays/d-two/', { planogram: 'pg-first', musthavelist: 'mhl-first' })).status).toBe(200);
    expect(await shown()).toEqual({ planogram: 'pg-first', musthavelist: 'mhl-first' });
    expect(await scored()).toEqual(await shown());
  });

  it('ends the reports ERROR after the last attempt when the work itself keeps failing', async () => {
    // An upload whose file vanished from the data directory: decoding fails on every attempt.
    const bytes = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#345' } }).jpeg().toBuffer();
    const up = await upload(t, bytes);
    const sha = createHash('sha256').update(bytes).digest('hex');
    rmSync(path.join(t.dataDir, 'uploads', sha.slice(0, 2), `${sha}.jpg`));
    const res = await t.post('/api/v1.5/recognize/', { images: [up.id], report_types: ['FACING_COUNT', 'REALOGRAM'] });
    expect(res.status).toBe(201);
    const done = await waitForReports(t, Object.values(res.body.reports));
    for (const r of Object.values(done)) {
      expect(r.status).toBe('ERROR');
      expect(r.error).toMatch(/^Recognition failed: /);
    }
    const jobs = t.snapshot().recognition_jobs as Array<{ scene_id: string; status: string; attempts: number }>;
    expect(jobs.find((j) => j.scene_id === res.body.scene)).toMatchObject({ status: 'failed', attempts: 3 });
  });

  it('force_update recomputes reports', async () => {
    const res = await t.post('/api/v1.5/recognize/', { images: [photo] });
    const id = res.body.reports.FACING_COUNT;
    const first = (await waitForReports(t, [id]))[id];
    const forced = await t.post('/api/v1.5/reports/force_update/', { reports: [id] });
    expect(forced.status).toBe(200);
    expect(forced.body).toEqual({ reports: [id] });
    const again = (await waitForReports(t, [id]))[id];
    expect(again.status).toBe('READY');
    expect(again.json).toEqual(first.json);
    expect(again.updated_date > first.updated_date).toBe(true);
    expect((await t.post('/api/v1.5/reports/force_update/', { reports: ['ghost'] })).body).toEqual({ reports: ['Invalid pk "ghost" - object does not exist.'] });
    expect((await t.post('/api/v1.5/reports/force_update/', {})).status).toBe(400);
  });
});

describe('OpenAPI description', () => {
  it('documents the recognition endpoints, SKU reference images included', async () => {
    const doc = (await t.get('/api/schema/')).body;
    for (const p of ['/api/v1.5/uploads/', '/api/v1.5/recognize/', '/api/v1.5/reports/{id}/', '/api/v1.5/sku/{id}/images/', '/api/v1.5/sku/{id}/images/{image_id}/', '/api/app/v1/webhook_deliveries/']) {
      expect(Object.keys(doc.paths), p).toContain(p);
    }
    expect(Object.keys(doc.paths['/api/v1.5/sku/{id}/images/'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(doc.paths['/api/v1.5/recognize/'].post.requestBody).toBeDefined();
  });
});

describe('recognition errors and out-of-stock reasons', () => {
  it('stores them with their images after checking the SKU, scene and images exist, and lists them', async () => {
    const res = await t.post('/api/v1.5/recognize/', { images: [photo] });
    const scene = res.body.scene;
    const err = await t.post('/api/v1.5/recognition_error/', { sku_gid: 'fanta_pet', scene, message: 'this is Sprite', images: [photo] });
    expect(err.status, err.text).toBe(201);
    expect(typeof err.body.recognition_error_id).toBe('string');
    const oos = await t.call('POST', '/api/v1.5/oos_reason/', { form: { sku_gid: 'fanta_pet', scene, reason: 'delivery late', images: [photo] } });
    expect(oos.status, oos.text).toBe(201);
    expect(typeof oos.body.oos_reason_id).toBe('string');

    expect((await t.post('/api/v1.5/recognition_error/', { sku_gid: 'ghost', scene: 'nope', images: ['x'] })).body).toEqual({
      sku_gid: ['Invalid pk "ghost" - object does not exist.'],
      scene: ['Invalid pk "nope" - object does not exist.'],
      images: ['Invalid pk "x" - object does not exist.'],
    });
    expect((await t.post('/api/v1.5/oos_reason/', { scene })).body).toEqual({ sku_gid: ['This field is required.'] });

    const errors = await t.get(`/api/v1.5/recognition_error/?scene=${scene}`);
    expect(errors.body.count).toBe(1);
    expect(errors.body.results[0]).toMatchObject({ id: err.body.recognition_error_id, sku_gid: 'fanta_pet', scene, message: 'this is Sprite', images: [photo] });
    const reasons = await t.get('/api/v1.5/oos_reason/');
    expect(reasons.body.results[0]).toMatchObject({ id: oos.body.oos_reason_id, reason: 'delivery late', images: [photo] });
  });
});
