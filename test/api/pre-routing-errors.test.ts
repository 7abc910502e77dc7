// Errors raised before a request reaches a route, and ids as long as the schema
// allows. Malformed requests are written byte for byte on a raw socket, as a hostile
// client would send them; every answer must be JSON in DRF's shape that does not echo the request.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

/** Writes `raw` and reads the whole answer (the server closes or the answer ends). */
function rawRequest(raw: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(t.server.port, '127.0.0.1', () => socket.write(raw));
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      data += chunk;
      const head = data.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(data.slice(0, head));
      if (head >= 0 && length && data.length >= head + 4 + Number(length[1])) socket.end();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const head = data.indexOf('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1] ?? 0),
        type: /content-type: ([^\r]+)/i.exec(data.slice(0, head))?.[1] ?? '',
        body: data.slice(head + 4),
      });
    });
  });
}

const host = () => `Host: 127.0.0.1:${t.server.port}\r\nAuthorization: Token ${API_KEY}\r\n`;

describe('errors before routing are DRF JSON', () => {
  it.each([
    ['a bad percent-escape', () => `GET /api/v1.5/brands/%E0%A4%A-secret-probe/ HTTP/1.1\r\n${host()}\r\n`, 400],
    ['headers over the size limit', () => `GET /api/v1.5/brands/ HTTP/1.1\r\n${host()}X-Big: ${'a'.repeat(20_000)}-secret-probe\r\n\r\n`, 431],
    ['a URL over the size limit', () => `GET /api/v1.5/brands/${'a'.repeat(20_000)}-secret-probe/ HTTP/1.1\r\n${host()}\r\n`, 431],
    ['bad chunked framing', () => `POST /api/v1.5/brands/ HTTP/1.1\r\n${host()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz-secret-probe\r\n{}\r\n0\r\n\r\n`, 400],
    ['no Host header', () => `GET /api/v1.5/brands/?q=secret-probe HTTP/1.1\r\nAuthorization: Token ${API_KEY}\r\n\r\n`, 400],
    ['a garbled request line', () => `GET /secret-probe HTTP/9.9 junk\r\n\r\n`, 400],
    ['a path segment over the router limit', () => `GET /api/v1.5/brands/${'b'.repeat(3100)}-secret-probe/ HTTP/1.1\r\n${host()}\r\n`, 404],
  ])('%s', async (_name, raw, status) => {
    const res = await rawRequest(raw());
    expect(res.status, res.body.slice(0, 200)).toBe(status);
    expect(res.type).toMatch(/^application\/json/);
    const body = JSON.parse(res.body);
    expect(Object.keys(body)).toEqual(['detail']);
    expect(res.body).not.toContain('secret-probe');
  });
});

describe('ids as long as the schema allows', () => {
  it('a 255-character id (multi-byte too) can be created, read, changed and deleted; 256 is refused', async () => {
    for (const id of ['x'.repeat(255), 'ü'.repeat(200) + '🥫'.repeat(27) + 'y'.repeat(1)]) {
      expect([...id].length <= 255 && id.length >= 101).toBe(true);
      const made = await t.post('/api/v1.5/displays/', { id, name: 'Long id' });
      expect(made.status, made.text.slice(0, 200)).toBe(201);
      const path = `/api/v1.5/displays/${encodeURIComponent(id)}/`;
      expect((await t.get(path)).body.id).toBe(id);
      expect((await t.call('PATCH', path, { json: { name: 'Changed' } })).status).toBe(200);
      expect((await t.call('DELETE', path)).status).toBe(200);
      expect((await t.get(path)).status).toBe(404);
    }
    const tooLong = await t.post('/api/v1.5/brands/', { id: 'z'.repeat(256), name: 'x' });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.id).toEqual(['Ensure this field has no more than 255 characters.']);
  });
});
