// Requests the server makes of its own: by default upload_by_url reaches no loopback, private,
// link-local or unspecified address, however the address is spelled, and the answer is one text
// whatever happened, so it tells nothing about the network behind the server. A laptop's webhooks
// reach loopback too (a local integration on the same laptop), never private or link-local ranges;
// a central's reach public addresses only.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch, isPublicAddress } from '../../main/server/http/outgoing.js';
import { webhookReach } from '../../main/server/scenes/plugin.js';
import { startTestServer, type TestServer } from './harness.js';

let t: TestServer;
let internal: http.Server;
let port: number;
let hits = 0;

beforeAll(async () => {
  delete process.env.SHELF_AUDIT_ALLOW_PRIVATE_URLS;
  const jpeg = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#c00' } }).jpeg().toBuffer();
  // An internal service that would answer an image: the server must never reach it.
  internal = http.createServer((req, res) => {
    hits++;
    if (req.url === '/redirect') return void res.writeHead(302, { location: `http://127.0.0.1:${port}/image.jpg` }).end();
    res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg);
  });
  await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
  port = (internal.address() as AddressInfo).port;
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
  await new Promise((r) => internal?.close(r));
});

describe('upload_by_url refuses internal addresses', () => {
  it('whatever the spelling of loopback, private, link-local or unspecified, with one text', async () => {
    const urls = [
      `http://127.0.0.1:${port}/image.jpg`,
      `http://127.1:${port}/image.jpg`,
      `http://2130706433:${port}/image.jpg`,
      `http://0.0.0.0:${port}/image.jpg`,
      `http://[::1]:${port}/image.jpg`,
      `http://[::ffff:127.0.0.1]:${port}/image.jpg`,
      `http://localhost:${port}/image.jpg`,
      `http://127.0.0.1:${port}/redirect`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/image.jpg',
      'http://192.168.1.1/image.jpg',
      // A closed port answers exactly as an open one.
      'http://127.0.0.1:9/image.jpg',
    ];
    const before = t.snapshot();
    for (const url of urls) {
      const res = await t.post('/api/v1.5/uploads/upload_by_url/', { url });
      expect(res.status, url).toBe(400);
      expect(res.body, url).toEqual({ url: ['The image could not be fetched.'] });
    }
    expect(hits).toBe(0);
    expect(t.snapshot()).toEqual(before);
  });

  it("a laptop's webhook to loopback is delivered; to a private or link-local address it is not, and the log says why", async () => {
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#468' } }).jpeg().toBuffer();
    const form = new FormData();
    form.append('datafile', new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'p.jpg');
    const up = await t.call('POST', '/api/v1.5/uploads/', { multipart: form });
    const hitsBefore = hits;
    const local = await t.post('/api/v1.5/recognize/', { images: [up.body.id], report_types: ['FACING_COUNT'], webhook: `http://127.0.0.1:${port}/hook` });
    // Refused before any connection: the address is checked first, so nothing is sent to it.
    const linkLocal = await t.post('/api/v1.5/recognize/', { images: [up.body.id], report_types: ['FACING_COUNT'], webhook: 'http://169.254.169.254/hook' });
    expect([local.status, linkLocal.status]).toEqual([201, 201]);
    const reportOf = (res: typeof local) => Object.values(res.body.reports as Record<string, string>)[0];
    const deadline = Date.now() + 90_000;
    let entries: Array<{ report: string; status: string; last_error: string | null }> = [];
    const settled = () =>
      entries.some((e) => e.report === reportOf(local) && e.status === 'delivered') && entries.some((e) => e.report === reportOf(linkLocal) && e.last_error);
    while (!settled()) {
      if (Date.now() > deadline) throw new Error(`webhook deliveries not settled in 90 s: ${JSON.stringify(entries)}`);
      await new Promise((r) => setTimeout(r, 200));
      entries = (await t.get('/api/app/v1/webhook_deliveries/')).body.results;
    }
    expect(hits).toBeGreaterThan(hitsBefore);
    expect(entries.find((e) => e.report === reportOf(linkLocal))?.last_error).toMatch(/not delivered: address 169\.254\.169\.254 is not public or loopback/);
  });
});

describe('where webhooks may go', () => {
  it('a laptop: public and loopback; a central: public only; anywhere when private URLs are allowed', () => {
    expect(webhookReach('laptop', false)).toBe('loopback');
    expect(webhookReach('central', false)).toBe('public');
    expect(webhookReach('laptop', true)).toBe('any');
    expect(webhookReach('central', true)).toBe('any');
  });

  it('loopback reach takes every spelling of loopback and refuses private and link-local ones before connecting', async () => {
    for (const url of [`http://127.0.0.1:${port}/x`, `http://127.1:${port}/x`, `http://[::ffff:127.0.0.1]:${port}/x`]) {
      const res = await guardedFetch(url, { reach: 'loopback', timeoutMs: 5_000 });
      expect(res.status, url).toBe(200);
      await res.body?.cancel();
    }
    for (const url of ['http://10.1.2.3/x', 'http://192.168.0.1/x', 'http://169.254.169.254/x', 'http://[fe80::1]/x', 'http://0.0.0.0/x']) {
      await expect(guardedFetch(url, { reach: 'loopback', timeoutMs: 5_000 }), url).rejects.toThrow(/is not public or loopback/);
    }
    await expect(guardedFetch(`http://127.0.0.1:${port}/x`, { reach: 'public', timeoutMs: 5_000 })).rejects.toThrow(/address 127\.0\.0\.1 is not public/);
  });
});

describe('the address check', () => {
  it('allows public unicast only', () => {
    for (const a of ['8.8.8.8', '2606:4700:4700::1111', '93.184.216.34']) expect(isPublicAddress(a), a).toBe(true);
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.0.1', '169.254.169.254', '0.0.0.0', '224.0.0.1', '255.255.255.255', '100.64.0.1', '::1', '::', 'fe80::1', 'fc00::1', '::ffff:10.0.0.1', 'ff02::1', 'nonsense']) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });
});
