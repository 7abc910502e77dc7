// Requests the server makes of its own (issue 22, finding 8): by default upload_by_url and webhooks
// reach no loopback, private, link-local or unspecified address, however the address is spelled, and
// the answer is one text whatever happened, so it tells nothing about the network behind the server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../main/server/http/outgoing.js';
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

  it('webhooks to internal addresses are not delivered, and the log says why', async () => {
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#468' } }).jpeg().toBuffer();
    const form = new FormData();
    form.append('datafile', new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'p.jpg');
    const up = await t.call('POST', '/api/v1.5/uploads/', { multipart: form });
    const res = await t.post('/api/v1.5/recognize/', { images: [up.body.id], report_types: ['FACING_COUNT'], webhook: `http://127.0.0.1:${port}/hook` });
    expect(res.status).toBe(201);
    const deadline = Date.now() + 60_000;
    let entry: { status: string; last_error: string | null } | undefined;
    while (Date.now() < deadline) {
      entry = (await t.get('/api/app/v1/webhook_deliveries/')).body.results[0];
      if (entry?.last_error) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(entry?.last_error).toMatch(/not delivered: address 127\.0\.0\.1 is not public/);
    expect(hits).toBe(0);
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
