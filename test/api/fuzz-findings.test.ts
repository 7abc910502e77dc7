// Directed tests for what the fuzz test (fuzz.test.ts) found, and for invalid UTF-8 in form bodies:
// each failed before its fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  expect((await t.post('/api/v1.5/brands/', { id: 'b1', name: 'Brand' })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

describe('a query parameter named like an Object.prototype property', () => {
  it.each(['/api/v1.5/sku/?__proto__=x', '/api/v1.5/brands/?constructor=x', '/api/v1.5/planograms/?toString=1&__proto__=null'])(
    '%s is no filter (200), not a 500',
    async (url) => {
      const res = await t.get(url);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ results: expect.any(Array) });
    },
  );
});

describe('invalid UTF-8 in a form body', () => {
  const form = (body: Buffer) => t.call('POST', '/api/v1.5/brands/', { raw: { body, type: 'application/x-www-form-urlencoded' } });

  it.each([
    ['a raw byte 0xFF in a value', Buffer.concat([Buffer.from('id=b2&name=a'), Buffer.from([0xff]), Buffer.from('z')])],
    ['a percent-escaped 0xFF', Buffer.from('id=b2&name=a%FFz')],
    ['an escaped lone surrogate (ED A0 80)', Buffer.from('id=b2&name=%ED%A0%80')],
    ['a truncated sequence in a key', Buffer.from('id=b2&name=x&na%E2%82me=y')],
  ])('%s is a 400 in DRF shape that stores nothing', async (_name, body) => {
    const before = t.snapshot();
    const res = await form(body);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ detail: 'Form parse error - the body is not valid UTF-8.' });
    expect(t.snapshot()).toEqual(before);
  });

  it('valid UTF-8, escaped or not, a bare % and repeated keys still work', async () => {
    const res = await form(Buffer.from('id=b3&name=Caf%C3%A9+%F0%9F%99%82+100%+%zz+ß'));
    expect(res.status, res.text).toBe(201);
    expect((await t.get('/api/v1.5/brands/b3/')).body.name).toBe('Café 🙂 100% %zz ß');
    const list = await t.call('POST', '/api/v1.5/recognize/', { raw: { body: Buffer.from('images=a&images=b&report_types=FACING_COUNT'), type: 'application/x-www-form-urlencoded' } });
    expect(list.body).toEqual({ images: [expect.stringContaining('"a"')] });
  });
});

describe('invalid UTF-8 in a multipart text field', () => {
  it('is a 400 in DRF shape that stores nothing; a file part may hold any bytes', async () => {
    const boundary = 'b0undary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="id"\r\n\r\nb4\r\n--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\na`),
      Buffer.from([0xc3, 0x28]),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const before = t.snapshot();
    const res = await t.call('POST', '/api/v1.5/brands/', { raw: { body, type: `multipart/form-data; boundary=${boundary}` } });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ detail: 'Multipart form parse error - the field "name" is not valid UTF-8.' });
    expect(t.snapshot()).toEqual(before);

    const good = new FormData();
    good.append('id', 'b5');
    good.append('name', 'Café 🙂');
    const ok = await t.call('POST', '/api/v1.5/brands/', { multipart: good });
    expect(ok.status, ok.text).toBe(201);
    expect((await t.get('/api/v1.5/brands/b5/')).body.name).toBe('Café 🙂');
  });
});
