// Uploads through the real API: content addressing (duplicates), EXIF orientation, limits and clear
// 400s for what is not an image, upload by URL from a local HTTP server, the capability URL that
// serves the image without a header, and SKU reference images.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../api/harness.js';
import { cropFiles } from './fixtures.js';
import { upload } from './helpers.js';
import { loadIdentifier } from '../../main/server/recognition/identification/references.js';
import { CatalogCopy, catalogReferences } from '../../main/server/recognition/identification/catalog-copy.js';

// The test's receiver listens on loopback: allowed explicitly, as a local integration would (docs/api.md).
process.env.SHELF_AUDIT_ALLOW_PRIVATE_URLS = '1';

let t: TestServer;
let files: http.Server;
let filesUrl: string;
const served: Record<string, { type: string; body: Buffer; delayMs?: number }> = {};

beforeAll(async () => {
  t = await startTestServer();
  files = http.createServer((req, res) => {
    if (req.url === '/endless.jpg') {
      // No Content-Length: the size cap must hold while streaming.
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      const chunk = Buffer.alloc(1024 * 1024, 0xff);
      let sent = 0;
      const pump = () => {
        while (sent < 40 && res.write(chunk)) sent++;
        if (sent < 40) res.once('drain', pump);
        else res.end();
      };
      res.on('error', () => undefined);
      return void pump();
    }
    const f = served[req.url ?? ''];
    if (!f) return void res.writeHead(404).end('no');
    setTimeout(() => res.writeHead(200, { 'content-type': f.type }).end(f.body), f.delayMs ?? 0);
  });
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
  files?.closeAllConnections();
  await new Promise((r) => files?.close(r));
});

async function multipart(field: string, bytes: Buffer, type = 'image/jpeg') {
  const form = new FormData();
  form.append(field, new Blob([new Uint8Array(bytes)], { type }), 'x');
  return t.call('POST', '/api/v1.5/uploads/', { multipart: form });
}

describe('uploads', () => {
  it('stores an image once, by content, and reports the duplicate', async () => {
    const bytes = readFileSync(cropFiles('fanta_pet')[0]);
    const first = await multipart('datafile', bytes);
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ width: 65, height: 200, duplicate: false });
    const again = await multipart('file', bytes);
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: first.body.id, duplicate: true });
    const sha = (await import('node:crypto')).createHash('sha256').update(bytes).digest('hex');
    expect(existsSync(path.join(t.dataDir, 'uploads', sha.slice(0, 2), `${sha}.jpg`))).toBe(true);
    const got = await t.get(`/api/v1.5/uploads/${first.body.id}/`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: first.body.id, url: first.body.url, width: 65, height: 200 });
  });

  it('serves the image at its url without a token header, and nothing with a wrong token', async () => {
    const bytes = readFileSync(cropFiles('sprite_pet')[0]);
    const up = await upload(t, bytes);
    const res = await fetch(up.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    const forged = up.url.replace(/content\/[0-9a-f]+\//, `content/${'0'.repeat(48)}/`);
    expect((await fetch(forged)).status).toBe(404);
  });

  it('honours the EXIF orientation: width and height as displayed', async () => {
    const rotated = await sharp({ create: { width: 300, height: 120, channels: 3, background: { r: 200, g: 30, b: 30 } } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const res = await multipart('datafile', rotated);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ width: 120, height: 300 });
  });

  it('accepts PNG and WebP', async () => {
    for (const format of ['png', 'webp'] as const) {
      const img = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 1, g: 2, b: format === 'png' ? 3 : 4 } } })[format]().toBuffer();
      const res = await multipart('datafile', img, `image/${format}`);
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({ width: 40, height: 30 });
    }
  });

  it('answers 400 for a missing file, a non-image, a truncated image, an unsupported format and too many pixels', async () => {
    const none = await t.call('POST', '/api/v1.5/uploads/', { multipart: new FormData() });
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ datafile: ['No file was submitted.'] });

    const text = await multipart('datafile', Buffer.from('hello, not an image'), 'image/jpeg');
    expect(text.status).toBe(400);
    expect(text.body.datafile[0]).toMatch(/not an image or a corrupted image/);

    const jpeg = readFileSync(cropFiles('fanta_pet')[1]);
    const truncated = await multipart('datafile', jpeg.subarray(0, Math.floor(jpeg.length / 2)));
    expect(truncated.status).toBe(400);

    const gif = await sharp({ create: { width: 10, height: 10, channels: 3, background: 'white' } }).gif().toBuffer();
    const unsupported = await multipart('datafile', gif, 'image/gif');
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.datafile[0]).toMatch(/JPEG, PNG or WebP/);

    // 8000 x 7000 = 56 MP of one colour compresses to a small PNG.
    const huge = await sharp({ create: { width: 8000, height: 7000, channels: 3, background: 'white' } }).png({ compressionLevel: 9 }).toBuffer();
    const big = await multipart('datafile', huge, 'image/png');
    expect(big.status).toBe(400);
    expect(big.body.datafile[0]).toMatch(/pixels/);
    expect(t.snapshot().uploads.length).toBe(5); // only the good ones above
  });

  it('uploads by URL from an http server, with clear 400s for bad URLs', async () => {
    const bytes = readFileSync(cropFiles('cocacola_pet')[0]);
    served['/coke.jpg'] = { type: 'image/jpeg', body: bytes };
    served['/page.html'] = { type: 'text/html', body: Buffer.from('<html></html>') };
    for (const route of ['/api/v1.5/uploads/upload_by_url/', '/api/v1.5/uploads_by_url/']) {
      const res = await t.post(route, { url: `${filesUrl}/coke.jpg` });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ width: 78, height: 206 });
      expect(res.body.duplicate).toBeUndefined();
    }
    const form = await t.call('POST', '/api/v1.5/uploads/upload_by_url/', { form: { url: `${filesUrl}/coke.jpg` } });
    expect(form.status).toBe(200);
    expect((await t.post('/api/v1.5/uploads/upload_by_url/', { url: `${filesUrl}/missing.jpg` })).body).toEqual({ url: ['The image could not be fetched.'] });
    expect((await t.post('/api/v1.5/uploads/upload_by_url/', { url: `${filesUrl}/page.html` })).status).toBe(400);
    expect((await t.post('/api/v1.5/uploads/upload_by_url/', { url: 'ftp://example.com/a.jpg' })).body).toEqual({ url: ['Only http and https URLs are accepted.'] });
    expect((await t.post('/api/v1.5/uploads/upload_by_url/', { url: 'not a url' })).status).toBe(400);
    expect((await t.post('/api/v1.5/uploads/upload_by_url/', {})).body).toEqual({ url: ['This field is required.'] });
    const endless = await t.post('/api/v1.5/uploads/upload_by_url/', { url: `${filesUrl}/endless.jpg` });
    expect(endless.status).toBe(400);
    expect(endless.body).toEqual({ url: ['The file is larger than 25 MB.'] });
  });

  it('needs a token for the upload API itself', async () => {
    const res = await t.call('POST', '/api/v1.5/uploads/', { multipart: new FormData(), token: null });
    expect(res.status).toBe(401);
  });
});

describe('SKU reference images', () => {
  it('adds (by upload id, with a crop, or as a file), lists and removes reference images', async () => {
    expect((await t.post('/api/v1.5/sku/', { id: 'fanta', name: 'Fanta' })).status).toBe(201);
    const shelfPart = await upload(t, readFileSync(cropFiles('fanta_pet')[2]));
    const a = await t.post('/api/v1.5/sku/fanta/images/', { image: shelfPart.id });
    expect(a.status, a.text).toBe(201);
    expect(a.body).toMatchObject({ sku: 'fanta', upload: shelfPart.id, crop: null });
    const b = await t.post('/api/v1.5/sku/fanta/images/', { image: shelfPart.id, crop: { x: 5, y: 10, w: 50, h: 150 } });
    expect(b.status).toBe(201);
    expect(b.body.crop).toEqual({ x: 5, y: 10, w: 50, h: 150 });
    const form = new FormData();
    form.append('datafile', new Blob([new Uint8Array(readFileSync(cropFiles('fanta_pet')[3]))], { type: 'image/jpeg' }), 'f.jpg');
    const c = await t.call('POST', '/api/v1.5/sku/fanta/images/', { multipart: form });
    expect(c.status, c.text).toBe(201);
    expect((await fetch(c.body.url)).status).toBe(200);

    const rows = t.snapshot().sku_images as Array<{ descriptor: Buffer | null }>;
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(r.descriptor?.length).toBeGreaterThan(1000);

    const list = await t.get('/api/v1.5/sku/fanta/images/?limit=2');
    expect(list.body.count).toBe(3);
    expect(list.body.results).toHaveLength(2);
    expect(list.body.next).toContain('offset=2');
    expect((await t.delete(`/api/v1.5/sku/fanta/images/${a.body.id}/`)).body).toEqual({ result: 'OK' });
    expect((await t.get('/api/v1.5/sku/fanta/images/')).body.count).toBe(2);
    expect((await t.delete(`/api/v1.5/sku/fanta/images/${a.body.id}/`)).status).toBe(404);
  });

  it("lists many SKUs' images in one request: by sku__in, and only each one's first", async () => {
    for (const id of ['pic-a', 'pic-b', 'pic-none']) expect((await t.post('/api/v1.5/sku/', { id, name: id })).status).toBe(201);
    const image = await upload(t, readFileSync(cropFiles('fanta_pet')[2]));
    const added = [];
    for (const sku of ['pic-a', 'pic-b', 'pic-a']) added.push((await t.post(`/api/v1.5/sku/${sku}/images/`, { image: image.id })).body);
    const list = async (query: string) => {
      const r = await t.get(`/api/v1.5/sku_images/?${query}`);
      expect(r.status, r.text).toBe(200);
      return r.body;
    };
    const all = await list('sku__in=pic-a,pic-b,pic-none');
    expect(all.count).toBe(3);
    expect(all.results.map((r: { id: string }) => r.id)).toEqual(added.map((a) => a.id));
    expect(all.results[0]).toEqual(added[0]);
    // The pictures a screen shows: one per SKU that has any, the first added.
    const firsts = await list('sku__in=pic-a,pic-b,pic-none&first=true');
    expect(firsts.results.map((r: { sku: string; id: string }) => [r.sku, r.id])).toEqual([['pic-a', added[0].id], ['pic-b', added[1].id]]);
    expect((await list('sku__in=pic-none&first=true')).count).toBe(0);
    expect((await list('sku__in=pic-a&limit=1')).next).toContain('offset=1');
    expect((await t.get('/api/v1.5/sku_images/?first=maybe')).status).toBe(400);
  });

  it('reuses the loaded catalog until a reference is added or removed or its SKU renamed', async () => {
    const db = t.server.app.db;
    expect((await t.post('/api/v1.5/sku/', { id: 'sprite', name: 'Sprite' })).status).toBe(201);
    const first = await upload(t, readFileSync(cropFiles('sprite_pet')[0]));
    const added = await t.post('/api/v1.5/sku/sprite/images/', { image: first.id });
    expect(added.status, added.text).toBe(201);
    const a = await loadIdentifier(db, t.dataDir, t.server.app.recognitionAnalyzer);
    expect(await loadIdentifier(db, t.dataDir, t.server.app.recognitionAnalyzer)).toBe(a);

    const second = await upload(t, readFileSync(cropFiles('sprite_pet')[1]));
    expect((await t.post('/api/v1.5/sku/sprite/images/', { image: second.id })).status).toBe(201);
    const b = await loadIdentifier(db, t.dataDir, t.server.app.recognitionAnalyzer);
    expect(b).not.toBe(a);
    expect(b.references().filter((r) => r.skuId === 'sprite')).toHaveLength(2);

    expect((await t.patch('/api/v1.5/sku/sprite/', { id: 'sprite-2' })).status).toBe(200);
    const c0 = await loadIdentifier(db, t.dataDir, t.server.app.recognitionAnalyzer);
    expect(c0).not.toBe(b);
    expect(c0.references().filter((r) => r.skuId === 'sprite-2')).toHaveLength(2);
    // The SKU's name and attributes, which the printed text of look-alikes is compared with: a new
    // name or attribute is another catalog too, and the catalog copied to another thread keeps them.
    expect(c0.skuNames.get('sprite-2')).toEqual({ name: 'Sprite', text: 'Sprite' });
    expect((await t.patch('/api/v1.5/sku/sprite-2/', { name: 'Sprite Zero', attributes: { flavour: 'lemon lime' } })).status).toBe(200);
    const c = await loadIdentifier(db, t.dataDir, t.server.app.recognitionAnalyzer);
    expect(c).not.toBe(c0);
    expect(c.skuNames.get('sprite-2')).toEqual({ name: 'Sprite Zero', text: 'Sprite Zero lemon lime' });
    const copy = new CatalogCopy().identifier({ version: 1, options: c.options, refs: catalogReferences(c), names: [...c.skuNames] });
    expect(copy.skuNames.get('sprite-2')).toEqual(c.skuNames.get('sprite-2'));
    expect(copy.references()).toHaveLength(c.references().length);

    expect((await t.delete(`/api/v1.5/sku/sprite-2/images/${added.body.id}/`)).status).toBe(200);
    const d = await loadIdentifier(db, t.dataDir, t.server.app.recognitionAnalyzer);
    expect(d).not.toBe(c);
    expect(d.references().filter((r) => r.skuId === 'sprite-2')).toHaveLength(1);
  });

  it('answers 400 for an unknown upload or a crop outside the image, 404 for an unknown SKU', async () => {
    const up = await upload(t, readFileSync(cropFiles('fanta_pet')[4]));
    expect((await t.post('/api/v1.5/sku/fanta/images/', { image: 'nope' })).body).toEqual({ image: ['Invalid pk "nope" - object does not exist.'] });
    const outside = await t.post('/api/v1.5/sku/fanta/images/', { image: up.id, crop: { x: 0, y: 0, w: 5000, h: 10 } });
    expect(outside.status).toBe(400);
    expect(outside.body.crop[0]).toMatch(/inside/);
    expect((await t.post('/api/v1.5/sku/fanta/images/', {})).body).toEqual({ image: ['This field is required.'] });
    expect((await t.post('/api/v1.5/sku/ghost/images/', { image: up.id })).status).toBe(404);
  });

  it('stores nothing when a file sent with a crop off its image is refused', async () => {
    expect((await t.post('/api/v1.5/sku/', { id: 'crop-check', name: 'Crop check' })).status).toBe(201);
    const before = t.snapshot();
    const bytes = await sharp({ create: { width: 40, height: 60, channels: 3, background: '#3a7' } }).jpeg().toBuffer();
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), 'ref.jpg');
    form.append('crop', JSON.stringify({ x: 10, y: 10, w: 100, h: 20 }));
    const refused = await t.call('POST', '/api/v1.5/sku/crop-check/images/', { multipart: form });
    expect(refused.status).toBe(400);
    expect(refused.body.crop[0]).toMatch(/inside the 40x60 image/);
    expect(t.snapshot()).toEqual(before);
  });
});
