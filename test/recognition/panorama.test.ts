// PANORAMA: two overlapping photos cut from one real shelf photo (the second slightly rotated and
// scaled, as a second shot would be) are really stitched: the panorama has the original's extent and
// matches the original where both photos overlap, and it is a real upload the report points to.
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stitchPanorama } from '../../main/server/recognition/panorama.js';
import { startTestServer, type TestServer } from '../api/harness.js';
import { DATA } from './fixtures.js';
import { upload, waitForReports } from './helpers.js';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';

const SOURCE = path.join(DATA, 'shelf-photos', 'test_1175.jpg');
const W = 1600; // the source is reduced to this width first
let original: { data: Buffer; width: number; height: number };
let left: Buffer;
let right: Buffer;
let t: TestServer;
let tmp: string;

/** Grey pixels at a quarter of the size. */
async function quarter(img: Buffer | { data: Buffer; width: number; height: number }) {
  const input = Buffer.isBuffer(img) ? sharp(img) : sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } });
  const meta = Buffer.isBuffer(img) ? await sharp(img).metadata() : img;
  const width = Math.round(meta.width! / 4);
  const { data, info } = await input.resize(width).grayscale().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

type Grey = Awaited<ReturnType<typeof quarter>>;

/** Mean absolute difference over columns [x0, x1) of `a`, with `a` placed at (dx, dy) inside `b`. */
function mad(a: Grey, b: Grey, dx: number, dy: number, x0: number, x1: number): number {
  let sum = 0;
  let n = 0;
  // Rows near the top and bottom edge hold the rotated second photo's empty corners.
  for (let y = Math.round(a.height * 0.1); y < a.height * 0.9; y += 2) {
    const by = y + dy;
    if (by < 0 || by >= b.height) continue;
    for (let x = x0; x < x1; x += 2) {
      const bx = x + dx;
      if (bx < 0 || bx >= b.width) continue;
      sum += Math.abs(a.data[y * a.width + x] - b.data[by * b.width + bx]);
      n++;
    }
  }
  return n ? sum / n : 255;
}

beforeAll(async () => {
  const { data, info } = await sharp(SOURCE).rotate().resize(W).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  original = { data, width: info.width, height: info.height };
  const raw = { raw: { width: info.width, height: info.height, channels: 3 as const } };
  const cut = Math.round(info.width * 0.6);
  left = await sharp(data, raw).extract({ left: 0, top: 0, width: cut, height: info.height }).jpeg({ quality: 92 }).toBuffer();
  right = await sharp(data, raw)
    .extract({ left: info.width - cut, top: 0, width: cut, height: info.height })
    .rotate(2, { background: '#000' })
    .resize({ width: Math.round(cut * 0.9) })
    .jpeg({ quality: 92 })
    .toBuffer();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'panorama-'));
  writeFileSync(path.join(tmp, 'l.jpg'), left);
  writeFileSync(path.join(tmp, 'r.jpg'), right);
  t = await startTestServer();
}, 120_000);
afterAll(async () => {
  await t?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('panorama', () => {
  it('stitches two overlapping photos into the scene they were cut from', async () => {
    const pano = await stitchPanorama([path.join(tmp, 'l.jpg'), path.join(tmp, 'r.jpg')]);
    expect(pano.stitched).toBe(true);
    // Same extent as the original (the rotated second photo adds a few pixels of border).
    expect(pano.width / pano.height).toBeGreaterThan((original.width / original.height) * 0.95);
    expect(pano.width / pano.height).toBeLessThan((original.width / original.height) * 1.1);
    // Where the first photo (kept unwarped) sits in the panorama: the offset that fits its left half.
    const o = await quarter(original);
    const p = await quarter(pano.jpeg);
    let best = { dx: 0, dy: 0, d: Infinity };
    for (let dy = 0; dy <= p.height - o.height + 2; dy++) {
      for (let dx = 0; dx <= Math.max(0, p.width - o.width) + 2; dx++) {
        const d = mad(o, p, dx, dy, 0, Math.round(o.width * 0.5));
        if (d < best.d) best = { dx, dy, d };
      }
    }
    expect(best.d).toBeLessThan(12);
    // The part of the scene only the second photo shows lands where it belongs in the original.
    const onlyRight = [Math.round(o.width * 0.65), Math.round(o.width * 0.97)] as const;
    const aligned = mad(o, p, best.dx, best.dy, ...onlyRight);
    const misplaced = mad(o, p, best.dx + 8, best.dy + 8, ...onlyRight);
    // Measured: about 10 for the unwarped half (JPEG and resampling), 21 here, 53 misplaced by 32 px.
    expect(aligned).toBeLessThan(26);
    expect(aligned).toBeLessThan(misplaced / 2);
  }, 120_000);

  it('says stitched: false and places a photo that does not overlap beside the others', async () => {
    const other = path.join(DATA, 'shelf-photos', 'test_1234.jpg');
    const pano = await stitchPanorama([path.join(tmp, 'l.jpg'), other]);
    expect(pano.stitched).toBe(false);
    expect(pano.width).toBeGreaterThan(pano.height * 0.9);
  }, 120_000);

  it('is a PANORAMA report pointing at a real upload', async () => {
    const a = await upload(t, left);
    const b = await upload(t, right);
    const res = await t.post('/api/v1.5/recognize/', { images: [a.id, b.id], report_types: ['PANORAMA'], panorama_stack_width: 2, panorama_stack_height: 1 });
    expect(res.status, res.text).toBe(201);
    const id = res.body.reports.PANORAMA;
    const report = (await waitForReports(t, [id]))[id];
    expect(report.status, report.error).toBe('READY');
    expect(report.json).toMatchObject({ images: [a.id, b.id], stitched: true });
    const img = await fetch(report.json.url);
    expect(img.status).toBe(200);
    const meta = await sharp(Buffer.from(await img.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([report.json.width, report.json.height]);
    expect((await t.get(`/api/v1.5/uploads/${report.json.upload}/`)).body).toMatchObject({ width: report.json.width, height: report.json.height });
  }, 120_000);
});
