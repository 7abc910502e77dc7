// Photo quality through the real server: each upload's answer carries its checks, /recognize answers
// them per photo (repeats in the visit included), the visit's quality adds distance and coverage once
// recognised, and the thresholds are settings with DRF-shaped 400s. Real shelf photos from
// ../shared/data (evaluation only, never committed).
import { existsSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../api/harness.js';
import { upload, waitForReports } from './helpers.js';

const PHOTOS = path.resolve(process.env.SHARED_DATA ?? path.join(process.cwd(), '../shared/data'), 'shelf-photos');
const photo = path.join(PHOTOS, 'test_1347.jpg');
const other = path.join(PHOTOS, 'test_2346.jpg');

let t: TestServer;
let sharpPhoto: Buffer;
beforeAll(async () => {
  if (!existsSync(photo)) throw new Error(`${photo} is missing: the tests need ../shared/data`);
  t = await startTestServer();
  sharpPhoto = await sharp(photo).rotate().resize(1600).jpeg({ quality: 88 }).toBuffer();
});
afterAll(async () => t?.close());

describe('the upload answers with its quality', () => {
  it('a sharp shelf photo is fine, a blurred one is marked retake with the reason', async () => {
    const good = await upload(t, sharpPhoto);
    expect(good.quality).toEqual({ ok: true, mark: 'fine', issues: [] });
    const blurred = await upload(t, await sharp(sharpPhoto).blur(5).jpeg().toBuffer());
    expect(blurred.quality.mark).toBe('retake');
    const blur = blurred.quality.issues.find((i: any) => i.code === 'blur');
    expect(blur).toMatchObject({ severity: 'retake', threshold: expect.any(Number) });
    expect(blur.value).toBeLessThan(blur.threshold);
    expect(blur.message).toMatch(/blurred/);
    // The same bytes again: the stored measures answer.
    const again = await upload(t, sharpPhoto);
    expect(again.duplicate).toBe(true);
    expect(again.quality.mark).toBe('fine');
  });

  it('answers in words for a tiny, grey, 16-bit, CMYK, panorama-sized and EXIF-rotated photo', async () => {
    const tiny = await upload(t, await sharp(sharpPhoto).resize(200).png().toBuffer(), 'tiny.png');
    expect(tiny.quality.issues[0]).toMatchObject({ code: 'too_small', severity: 'retake' });
    for (const variant of [
      await sharp(sharpPhoto).greyscale().jpeg().toBuffer(),
      await sharp(sharpPhoto).toColourspace('rgb16').png().toBuffer(),
      await sharp(sharpPhoto).toColourspace('cmyk').jpeg().toBuffer(),
      await sharp(sharpPhoto).rotate(90).withMetadata({ orientation: 8 }).jpeg().toBuffer(),
    ]) {
      const up = await upload(t, variant);
      expect(up.quality.issues.map((i: any) => i.code)).toEqual([]);
    }
    const flat = await upload(t, await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#777' } }).jpeg().toBuffer());
    expect(flat.quality.issues.map((i: any) => i.code)).toContain('blur');
    const wide = await sharp({ create: { width: 12000, height: 2200, channels: 3, background: '#333' } })
      .composite([{ input: sharpPhoto, left: 0, top: 0 }, { input: sharpPhoto, left: 6000, top: 0 }]).jpeg().toBuffer();
    const pano = await upload(t, wide);
    expect(pano.width).toBe(12000);
    expect(pano.quality.mark).toMatch(/fine|check|retake/);
  });
});

describe('/recognize answers each photo\'s quality, and the visit\'s quality adds the detector\'s checks', () => {
  it('flags a photo repeated in the visit and judges distance once recognised', async () => {
    const a = await upload(t, sharpPhoto);
    const b = await upload(t, await sharp(other).rotate().resize(1600).jpeg().toBuffer());
    const first = await t.post('/api/v1.5/recognize/', { images: [a.id, b.id] });
    expect(first.status).toBe(201);
    expect(first.body.quality.map((q: any) => q.image)).toEqual([a.id, b.id]);
    expect(first.body.quality[0]).toMatchObject({ mark: 'fine', detection_checked: false });
    // A re-encoded copy of the first photo in the next scene of the same visit.
    const copy = await upload(t, await sharp(sharpPhoto).resize(1400).jpeg({ quality: 70 }).toBuffer());
    const second = await t.post('/api/v1.5/recognize/', { images: [copy.id], visit: first.body.visit });
    const dup = second.body.quality[0].issues.find((i: any) => i.code === 'duplicate');
    expect(dup.message).toContain(a.id);

    await waitForReports(t, Object.values(first.body.reports) as string[], 240_000);
    const visit = await t.get(`/api/app/v1/photo_quality/?visit=${first.body.visit}&scene=${first.body.scene}`);
    expect(visit.status).toBe(200);
    expect(visit.body.scenes).toHaveLength(1);
    expect(visit.body.scenes[0].photos.every((p: any) => p.detection_checked)).toBe(true);
    const marks = await t.get(`/api/app/v1/photo_quality/marks/?visit__in=${first.body.visit},nope`);
    expect(marks.body).toEqual([{ visit: first.body.visit, mark: expect.stringMatching(/fine|check|retake/) }]);
    const byMark = await t.get(`/api/app/v1/photo_quality/visits/?mark=${marks.body[0].mark}`);
    expect(byMark.body.visits).toContain(first.body.visit);
    expect((await t.get('/api/app/v1/photo_quality/visits/?mark=bad')).status).toBe(400);
    const none = await t.get('/api/app/v1/photo_quality/?visit=nope');
    expect(none.status).toBe(400);
    expect(none.body.visit[0]).toMatch(/does not exist/);
  }, 300_000);
});

describe('a photo with no shelf', () => {
  it('is said to show no products once recognised, never passed silently', async () => {
    const wall = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#c8c2b8' } })
      .composite([{ input: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="1200"><rect x="200" y="300" width="1200" height="8" fill="#444"/></svg>') }])
      .jpeg().toBuffer();
    const up = await upload(t, wall);
    expect(up.quality.mark).toBe('retake');
    const created = await t.post('/api/v1.5/recognize/', { images: [up.id] });
    await waitForReports(t, Object.values(created.body.reports) as string[], 240_000);
    const q = await t.get(`/api/app/v1/photo_quality/?visit=${created.body.visit}`);
    const photo = q.body.scenes[0].photos[0];
    expect(photo.detection_checked).toBe(true);
    expect(photo.issues.find((i: any) => i.code === 'no_products')).toMatchObject({ severity: 'retake', message: expect.stringMatching(/No products/) });
  }, 300_000);
});

describe('thresholds are settings', () => {
  it('reads, changes and re-judges; out of range is a 400 naming the field', async () => {
    const before = await t.get('/api/app/v1/photo_quality/settings/');
    expect(before.status).toBe(200);
    expect(before.body.min_sharpness).toBeGreaterThan(0);
    const changed = await t.call('PATCH', '/api/app/v1/photo_quality/settings/', { json: { min_sharpness: 4000 } });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ ...before.body, min_sharpness: 4000 });
    // A photo measured before is judged under the new threshold.
    const up = await upload(t, sharpPhoto);
    expect(up.quality.issues.map((i: any) => i.code)).toContain('blur');

    const bad = await t.call('PATCH', '/api/app/v1/photo_quality/settings/', { json: { max_glare: 2, max_tilt: -1 } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body).sort()).toEqual(['max_glare', 'max_tilt']);
    const crossed = await t.call('PATCH', '/api/app/v1/photo_quality/settings/', { json: { min_brightness: 250 } });
    if (crossed.status !== 400) throw new Error(crossed.text);
    expect(crossed.status).toBe(400);
    expect(crossed.body.min_brightness[0]).toMatch(/below max_brightness/);
    // Unknown fields are ignored, as DRF's serializers do.
    const unknown = await t.call('PATCH', '/api/app/v1/photo_quality/settings/', { json: { nonsense: 1 } });
    expect(unknown.status, unknown.text).toBe(200);
    expect((await t.get('/api/app/v1/photo_quality/settings/')).body.min_sharpness).toBe(4000);
    await t.call('PUT', '/api/app/v1/photo_quality/settings/', { json: { min_sharpness: before.body.min_sharpness } });
  });
});
