// Bounded memory for multipart uploads: files stream to temp files, limits per
// file and per request answer 413 in DRF's shape, no temp file outlives its request, and large bodies
// in flight are bounded (waiters get 503 with Retry-After). Timings are in bench/upload-memory.bench.mjs.
import Fastify from 'fastify';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Slots, bodyAdmissionPlugin } from '../../main/server/http/body-admission.js';
import { drfErrorHandler } from '../../main/server/http/errors.js';
import { FILE_SIZE_LIMIT, MAX_FILES, incomingDir } from '../../main/server/http/multipart.js';
import { referenceFiles } from '../recognition/fixtures.js';
import { API_KEY, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
const png = readFileSync(referenceFiles('fanta_pet')[0]);

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

/** Files left under DATA_DIR/incoming (none once a response has ended). */
function leftovers(): string[] {
  const dir = incomingDir(t.dataDir);
  return existsSync(dir) ? (readdirSync(dir, { recursive: true }) as string[]) : [];
}

/** Waits for the response's 'close' cleanup, which runs just after the client has the answer. */
async function settled(): Promise<string[]> {
  for (let i = 0; i < 50 && leftovers().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
  return leftovers();
}

/** Resolves once a temp file under DATA_DIR/incoming holds `bytes` bytes. */
async function waitForTempFile(bytes: number): Promise<void> {
  const dir = incomingDir(t.dataDir);
  for (let i = 0; i < 200; i++) {
    const sizes = leftovers().map((f) => statSync(path.join(dir, f))).filter((s) => s.isFile()).map((s) => s.size);
    if (sizes.some((s) => s >= bytes)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no temp file of ${bytes} bytes under ${dir}`);
}

function form(files: Array<[string, Buffer, string]>): FormData {
  const f = new FormData();
  for (const [field, bytes, name] of files) f.append(field, new Blob([new Uint8Array(bytes)], { type: 'image/png' }), name);
  return f;
}

describe('multipart limits', () => {
  it('a file over the per-file limit is a 413 that stores nothing and leaves no temp file', async () => {
    // A valid PNG padded past 25 MiB: only its size is wrong.
    const big = Buffer.concat([png, Buffer.alloc(FILE_SIZE_LIMIT + 1 - png.length)]);
    const before = t.snapshot();
    const res = await t.call('POST', '/api/v1.5/uploads/', { multipart: form([['datafile', big, 'big.png']]) });
    expect(res.status, res.text).toBe(413);
    expect(res.body).toEqual({ detail: 'Request body is too large.' });
    expect(t.snapshot()).toEqual(before);
    expect(await settled()).toEqual([]);
    const store = path.join(t.dataDir, 'uploads');
    expect(existsSync(store) ? readdirSync(store, { recursive: true }).filter((f) => String(f).endsWith('.png')) : []).toEqual([]);
  });

  it('more files than allowed is a 413; a refused image leaves no temp file either', async () => {
    const tooMany = form(Array.from({ length: MAX_FILES + 1 }, (_, i) => ['datafile', png, `${i}.png`] as [string, Buffer, string]));
    const res = await t.call('POST', '/api/v1.5/uploads/', { multipart: tooMany });
    expect(res.status, res.text).toBe(413);
    expect(await settled()).toEqual([]);

    const notImage = await t.call('POST', '/api/v1.5/uploads/', { multipart: form([['datafile', Buffer.from('not an image'), 'x.png']]) });
    expect(notImage.status).toBe(400);
    expect(await settled()).toEqual([]);
  });

  it('a text field over 1 MiB is a 413', async () => {
    const f = new FormData();
    f.append('name', 'x'.repeat(1024 * 1024 + 1));
    const res = await t.call('POST', '/api/v1.5/brands/', { multipart: f });
    expect(res.status, res.text).toBe(413);
  });

  it('an upload is stored from its temp file (same bytes, same hash) and the temp file is gone', async () => {
    const res = await t.call('POST', '/api/v1.5/uploads/', { multipart: form([['datafile', png, 'ok.png']]) });
    expect(res.status, res.text).toBe(201);
    const stored = await fetch(res.body.url);
    expect(Buffer.from(await stored.arrayBuffer()).equals(png)).toBe(true);
    expect(await settled()).toEqual([]);
    const again = await t.call('POST', '/api/v1.5/uploads/', { multipart: form([['file', png, 'again.png']]) });
    expect(again.body).toMatchObject({ id: res.body.id, duplicate: true });
    expect(await settled()).toEqual([]);
  });

  it('a file being received is on disk, not held in memory, and is stored from there', async () => {
    const url = new URL(t.url);
    const head = Buffer.from(`--xyz\r\nContent-Disposition: form-data; name="datafile"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`);
    const padding = Buffer.alloc(8 * 1024 * 1024);
    const tail = Buffer.from('\r\n--xyz--\r\n');
    const length = head.length + png.length + padding.length + tail.length;
    const res = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ host: url.hostname, port: url.port, method: 'POST', path: '/api/v1.5/uploads/', headers: { authorization: `Token ${API_KEY}`, 'content-type': 'multipart/form-data; boundary=xyz', 'content-length': String(length) } }, (r) => {
        let body = '';
        r.on('data', (c) => (body += c));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      // A valid PNG with 8 MiB after its end: all but the closing boundary sent, then a pause.
      req.write(Buffer.concat([head, png, padding]));
      waitForTempFile(png.length + padding.length).then(() => req.end(tail), reject);
    });
    const answer = await res;
    expect(answer.status, answer.body).toBe(201);
    expect(await settled()).toEqual([]);
  });

  it('a client that goes away mid-upload leaves no temp file', async () => {
    const url = new URL(t.url);
    await new Promise<void>((resolve) => {
      const req = http.request({ host: url.hostname, port: url.port, method: 'POST', path: '/api/v1.5/uploads/', headers: { authorization: `Token ${API_KEY}`, 'content-type': 'multipart/form-data; boundary=xyz', 'content-length': String(10 * 1024 * 1024) } });
      req.on('error', () => resolve());
      req.write(`--xyz\r\nContent-Disposition: form-data; name="datafile"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`);
      req.write(Buffer.alloc(2 * 1024 * 1024, 1), () => setTimeout(() => {
        req.destroy();
        resolve();
      }, 200));
    });
    expect(await settled()).toEqual([]);
  });
});

describe('large bodies in flight', () => {
  it('Slots: waiters are served in order, and give up after their wait', async () => {
    const slots = new Slots(1);
    const first = await slots.acquire(10);
    expect(first).not.toBeNull();
    const second = slots.acquire(1000);
    expect(await slots.acquire(20)).toBeNull();
    first!();
    first!(); // releasing twice frees one slot only
    const got = await second;
    expect(got).not.toBeNull();
    expect(slots.inUse).toBe(1);
    got!();
    expect(slots.inUse).toBe(0);
  });

  it('a large body beyond the slots waits, then gets DRF 503 with Retry-After; small bodies pass', async () => {
    const app = Fastify();
    app.setErrorHandler(drfErrorHandler);
    await app.register(bodyAdmissionPlugin, { slots: 1, waitMs: 300 });
    app.addContentTypeParser('application/octet-stream', (_req, payload, done) => {
      let n = 0;
      payload.on('data', (c: Buffer) => (n += c.length));
      payload.on('end', () => done(null, n));
    });
    app.post('/slow', async (request) => {
      await new Promise((r) => setTimeout(r, 1000));
      return { bytes: request.body };
    });
    app.post('/fast', async (request) => ({ bytes: request.body }));
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const big = new Uint8Array(2 * 1024 * 1024);
      const send = (p: string, body: Uint8Array<ArrayBuffer>) => fetch(base + p, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body });
      const holding = send('/slow', big);
      await new Promise((r) => setTimeout(r, 100));
      const refused = await send('/fast', big);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('10');
      expect(await refused.json()).toEqual({ detail: 'Service temporarily unavailable, try again later.' });
      const small = await send('/fast', new Uint8Array(1000));
      expect(small.status).toBe(200);
      expect((await holding).status).toBe(200);
      // The slot is free again once the first response has ended.
      expect((await send('/fast', big)).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
