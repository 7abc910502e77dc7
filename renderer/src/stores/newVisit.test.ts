// The new-visit flow's draft and photos survive a reload (a new store on the same saved data), and a
// failed start keeps everything for a retry that reuses the visit already created.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../../main/server/server.js';
import { ApiClient } from '../api/client';
import { getOne, listAll } from '../api/endpoints';
import type { PendingPhoto, StartedRecognition, VisitDraft } from '../db/database';
import { createNewVisitStore, CURRENT_DRAFT, reportTypesFor, type DraftRepository } from './newVisit';
import { createVisitReportsStore, pendingCount } from './visitReports';

const KEY = 'renderer-new-visit-test-key-0123456789';
let server: RunningServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'renderer-new-visit-'));
  server = await startServer({ dataDir, port: 0, apiKey: KEY });
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function memoryRepository() {
  const drafts = new Map<string, VisitDraft>();
  const photos = new Map<string, PendingPhoto>();
  const recognitions: StartedRecognition[] = [];
  const repo: DraftRepository = {
    loadDraft: async (id) => drafts.get(id),
    saveDraft: async (d) => void drafts.set(d.id, { ...d }),
    photos: async (id) => [...photos.values()].filter((p) => p.draftId === id).sort((a, b) => a.addedAt - b.addedAt),
    addPhoto: async (p) => void photos.set(p.id, { ...p }),
    markUploaded: async (id, uploadId, quality) => void Object.assign(photos.get(id)!, { uploadId, quality }),
    removePhoto: async (id) => void photos.delete(id),
    clearDraft: async (id) => {
      drafts.delete(id);
      for (const [k, p] of photos) if (p.draftId === id) photos.delete(k);
    },
    rememberRecognition: async (r) => void recognitions.push(r),
  };
  return { repo, drafts, photos, recognitions };
}

const jpeg = (name: string) => new File([new Uint8Array([0xff, 0xd8, 0xff, 0xd9])], name, { type: 'image/jpeg' });

describe('new visit store', () => {
  it('keeps the draft and its photos across a reload, and removes a photo', async () => {
    const { repo } = memoryRepository();
    let n = 0;
    const first = createNewVisitStore(repo, () => `id-${++n}`);
    await first.getState().load();
    await first.getState().update({ shop: 'Shop 7', agent: 'ann' });
    await first.getState().addPhotos([jpeg('a.jpg'), jpeg('b.jpg')]);

    const reloaded = createNewVisitStore(repo);
    await reloaded.getState().load();
    expect(reloaded.getState().draft).toMatchObject({ id: CURRENT_DRAFT, shop: 'Shop 7', agent: 'ann' });
    expect(reloaded.getState().photos.map((p) => p.name)).toEqual(['a.jpg', 'b.jpg']);

    await reloaded.getState().removePhoto('id-1');
    const again = createNewVisitStore(repo);
    await again.getState().load();
    expect(again.getState().photos.map((p) => p.name)).toEqual(['b.jpg']);
  });

  it('says so when the photos cannot be kept, and shows none of them', async () => {
    const { repo } = memoryRepository();
    repo.addPhoto = async () => {
      throw new Error('QuotaExceededError');
    };
    const store = createNewVisitStore(repo);
    await store.getState().load();
    await store.getState().addPhotos([jpeg('big.jpg')]);
    expect(store.getState().photos).toEqual([]);
    expect(store.getState().phase).toEqual({
      step: 'failed',
      message: 'The photos could not be kept on this computer: QuotaExceededError',
    });
  });

  it('will not start without photos', async () => {
    const store = createNewVisitStore(memoryRepository().repo);
    await store.getState().load();
    expect(await store.getState().start(new ApiClient(server.url, KEY), null)).toBeNull();
    expect(store.getState().phase).toEqual({ step: 'failed', message: 'Add at least one photo of the shelf.' });
  });

  it('after a failed upload keeps the photos and the visit, and a retry creates no second visit', async () => {
    const { repo, photos } = memoryRepository();
    const api = new ApiClient(server.url, KEY);
    const store = createNewVisitStore(repo);
    await store.getState().load();
    await store.getState().update({ shop: 'Shop 9', agent: 'bob' });
    // Four bytes are not a decodable image: the upload is refused, whatever else the server has.
    await store.getState().addPhotos([jpeg('broken.jpg')]);

    expect(await store.getState().start(api, null)).toBeNull();
    const phase = store.getState().phase;
    expect(phase.step).toBe('failed');
    expect(photos.size).toBe(1);
    const visitId = store.getState().draft.visitId;
    expect(visitId).toBeTruthy();
    const visits = await listAll(api, 'visits');
    expect(visits.filter((v) => v.shop === 'Shop 9')).toEqual([expect.objectContaining({ id: visitId, agent: 'bob' })]);

    await store.getState().start(api, null);
    expect((await listAll(api, 'visits')).filter((v) => v.shop === 'Shop 9')).toHaveLength(1);
  });
});

describe('photo quality in the new visit', () => {
  it('marks a blurred photo retake as it is added, replaces it in place, and asks a reason for one kept', async () => {
    const sharp = (await import('sharp')).default;
    const { repo, photos } = memoryRepository();
    const api = new ApiClient(server.url, KEY);
    const store = createNewVisitStore(repo);
    await store.getState().load();
    const shelf = path.resolve(process.env.SHARED_DATA ?? path.join('..', 'shared', 'data'), 'shelf-photos', 'test_1347.jpg');
    const good = await sharp(shelf).rotate().resize(1600).jpeg().toBuffer();
    const blurred = await sharp(good).blur(6).jpeg().toBuffer();
    const file = (bytes: Buffer, name: string) => new File([new Uint8Array(bytes)], name, { type: 'image/jpeg' });
    await store.getState().addPhotos([file(blurred, 'a.jpg'), file(good, 'b.jpg')], api);
    const [a, b] = store.getState().photos;
    expect(a.quality?.mark).toBe('retake');
    expect(a.quality?.issues.map((i) => i.code)).toContain('blur');
    expect(b.quality?.mark).toBe('fine');

    await store.getState().retakePhoto(a.id, file(good, 'a2.jpg'), api);
    const after = store.getState().photos;
    expect(after.map((p) => p.name)).toEqual(['a2.jpg', 'b.jpg']);
    expect(after[0].quality?.mark).toBe('fine');
    expect([...photos.values()].map((p) => p.name).sort()).toEqual(['a2.jpg', 'b.jpg']);

    await store.getState().addPhotos([file(blurred, 'c.jpg')], api);
    expect(await store.getState().start(api, null)).toBeNull();
    expect(store.getState().phase).toEqual({ step: 'needs-reason', photos: 1 });
    expect(await store.getState().start(api, null, '  ')).toBeNull();
    expect(await store.getState().start(api, null, 'The shelf was being restocked')).toBeTruthy();
  });
});

describe('new visit to reports, on the real server and model', () => {
  it('creates the visit, uploads the photo, starts recognition, forgets the photos, and the reports store follows them to the end', async () => {
    const { repo, photos, recognitions, drafts } = memoryRepository();
    const api = new ApiClient(server.url, KEY);
    const store = createNewVisitStore(repo);
    await store.getState().load();
    await store.getState().update({ shop: 'Shop 1', agent: 'eve' });
    const dir = path.resolve(process.env.SHARED_DATA ?? path.join('..', 'shared', 'data'), 'sku-crops', 'sprite_pet');
    const file = readdirSync(dir).find((f) => f.endsWith('.jpg'))!;
    await store.getState().addPhotos([new File([readFileSync(path.join(dir, file))], file, { type: 'image/jpeg' })]);

    // A product crop, not a shelf photo: checked as it is uploaded, marked retake, so a reason is asked.
    expect(await store.getState().start(api, null)).toBeNull();
    expect(store.getState().phase).toEqual({ step: 'needs-reason', photos: 1 });
    const visit = await store.getState().start(api, null, 'A test crop');
    expect(store.getState().phase).toEqual({ step: 'started', visit });
    expect(visit).toBeTruthy();
    expect(await getOne(api, 'visits', visit!)).toMatchObject({ shop: 'Shop 1', agent: 'eve' });
    // The photos are on the server now; the draft keeps shop and agent for the next visit.
    expect(photos.size).toBe(0);
    expect(drafts.get(CURRENT_DRAFT)).toMatchObject({ shop: 'Shop 1', agent: 'eve' });
    expect(drafts.get(CURRENT_DRAFT)?.visitId).toBeUndefined();
    expect(recognitions).toEqual([expect.objectContaining({ visit, scene: expect.any(String) })]);
    expect(Object.keys(recognitions[0].reports).sort()).toEqual(reportTypesFor(null).sort());

    const reports = createVisitReportsStore({ busyMs: 100, idleMs: 60_000 });
    const stop = reports.getState().watch(api, visit!);
    try {
      await vi.waitFor(
        () => {
          const s = reports.getState();
          expect(Object.keys(s.reports).sort()).toEqual(reportTypesFor(null).sort());
          expect(pendingCount(s.reports)).toBe(0);
        },
        { timeout: 240_000, interval: 200 },
      );
      const s = reports.getState();
      for (const r of Object.values(s.reports)) expect(r!.status, r!.error ?? '').toBe('READY');
      expect(s.reports.REALOGRAM?.scene).toBe(recognitions[0].scene);
      expect(Array.isArray(s.reports.FACING_COUNT?.json)).toBe(true);
    } finally {
      stop();
    }
  }, 300_000);
});

describe('reportTypesFor', () => {
  it('asks for compliance reports only when the display has a planogram or a must-have list', () => {
    expect(reportTypesFor(null)).not.toContain('PLANOGRAM_COMPLIANCE');
    const both = reportTypesFor({ id: 'd', name: 'D', planogram: 'p', musthavelist: 'm' });
    expect(both).toEqual(expect.arrayContaining(['FACING_COUNT', 'REALOGRAM', 'PLANOGRAM_COMPLIANCE', 'MHL_COMPLIANCE']));
    expect(reportTypesFor({ id: 'd', name: 'D', planogram: null, musthavelist: 'm' })).not.toContain('PLANOGRAM_COMPLIANCE');
  });
});
