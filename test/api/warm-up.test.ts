// What a freshly started server prepares as it starts listening (http/warm-up.ts): the model versions
// and the first pages of the lists the screens open on. The lists' answers are the same whether a page
// is read through the index (the first pages) or sliced from the whole order (further ones).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from './harness.js';
import { WARM_UP_REQUESTS } from '../../main/server/http/warm-up.js';
import { startServer } from '../../main/server/server.js';
import { serverSettings } from '../../main/server/config/config.js';
import { hostServer } from '../../main/host/hosted-server.js';

describe('warm-up at start', () => {
  const t = new TestServer();
  const count = 450;
  beforeAll(async () => {
    await t.start();
    const skus = Array.from({ length: count }, (_, i) => ({ id: `sku-${i}`, name: `Product ${String((i * 7919) % count).padStart(4, '0')}` }));
    expect((await t.call('POST', '/api/app/v1/import/', { json: { skus } })).status).toBe(200);
    await t.restart();
  }, 60_000);
  afterAll(() => t.close());

  it('runs once the server listens: model versions and the lists by their first ordering, none failing', async () => {
    const runs = await t.server.app.warmedUp();
    const names = runs.map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(['model versions', 'skus by name', 'brands by name', 'visits by -started_date']));
    expect(runs.filter((r) => r.error)).toEqual([]);
    const info = await t.call('GET', '/api/app/v1/info/');
    expect(info.status).toBe(200);
    expect(info.body.model_version).toMatch(/^shelf-detector sha256:[0-9a-f]{12}$/);
  });

  it('pages alike through the index and from the whole order', async () => {
    const all: string[] = [];
    // Pages of 100: the first two within the first pages read through the index, the rest sliced.
    for (let offset = 0; offset < count; offset += 100) {
      const page = await t.call('GET', `/api/v1.5/sku/?ordering=name&limit=100&offset=${offset}`);
      expect(page.body.count).toBe(count);
      all.push(...page.body.results.map((r: { name: string }) => r.name));
    }
    expect(all).toEqual([...all].sort());
    expect(new Set(all).size).toBe(count);
    // The first page again, now that the whole order is known, is the same.
    const again = await t.call('GET', '/api/v1.5/sku/?ordering=name&limit=100&offset=0');
    expect(again.body.results.map((r: { name: string }) => r.name)).toEqual(all.slice(0, 100));
  });
});

/** Starts the server with 300 SKUs imported; the api_keys rows then, which a warm-up must leave as they are. */
async function startWithSkus(t: TestServer): Promise<unknown[]> {
  await t.start();
  const skus = Array.from({ length: 300 }, (_, i) => ({ id: `sku-${i}`, name: `Product ${i}` }));
  expect((await t.call('POST', '/api/app/v1/import/', { json: { skus } })).status).toBe(200);
  return t.snapshot().api_keys;
}

// The request path's warm-up (http/warm-up.ts): pages and records through app.inject under an internal
// key that lives in memory only.
describe('request warm-up', () => {
  const t = new TestServer();
  let keysBefore: unknown[];
  beforeAll(async () => {
    keysBefore = await startWithSkus(t);
    await t.restart();
  }, 60_000);
  afterAll(() => t.close());

  it('sends the lists\' pages and records once the server listens, all answered, while no client asks the API', async () => {
    // A request outside the API (the window's page and scripts, here /health) does not end it.
    expect((await t.call('GET', '/health', { token: null })).status).toBe(200);
    const runs = await t.server.app.warmedUp();
    const requests = runs.find((r) => r.name === 'requests');
    expect(requests?.error).toBeUndefined();
    expect(requests?.result).toEqual({ sent: WARM_UP_REQUESTS, failed: 0 });
  });

  it('leaves no credential behind: no key row was written, and the internal key is refused once revoked', async () => {
    await t.server.app.warmedUp();
    expect(t.snapshot().api_keys).toEqual(keysBefore);
    const key = t.server.app.internalKey('test', 'read-only');
    const page = (token: string) => t.server.app.inject({ method: 'GET', url: '/api/v1.5/sku/?limit=1', headers: { authorization: `Token ${token}` } });
    expect((await page(key.token)).statusCode).toBe(200);
    // Never from a socket, even while it lives.
    expect((await t.call('GET', '/api/v1.5/sku/?limit=1', { token: key.token })).status).toBe(401);
    // Read-only: it cannot write.
    const post = await t.server.app.inject({ method: 'POST', url: '/api/v1.5/brands/', headers: { authorization: `Token ${key.token}`, 'content-type': 'application/json' }, payload: { name: 'x' } });
    expect(post.statusCode).toBe(403);
    key.revoke();
    expect((await page(key.token)).statusCode).toBe(401);
    expect(t.snapshot().api_keys).toEqual(keysBefore);
  });

  it('answers a client that asks the API during it, and stops for it', async () => {
    await t.server.close();
    t.server = await startServer({ dataDir: t.dataDir, port: 0, webRoot: undefined });
    // Asked as soon as the server listens, while the warm-up's tasks run.
    const page = await t.call('GET', '/api/v1.5/sku/?limit=100&offset=150');
    expect(page.status).toBe(200);
    expect(page.body.results).toHaveLength(100);
    const runs = await t.server.app.warmedUp();
    const after = runs.find((r) => r.name === 'requests')?.result as { sent: number; failed: number };
    expect(after.failed).toBe(0);
    expect(after.sent).toBeLessThan(WARM_UP_REQUESTS);
  });
});

// The headless server's warm-up before it listens (server.ts, `warmUpBeforeListen`; `serve` asks for
// SERVE_WARM_UP_BEFORE_LISTEN): thousands of requests, so a load arriving the moment it listens meets
// code V8 has optimised (docs/api.md, issue 40's sixth pass). The desktop's server does not.
describe('request warm-up before listening', () => {
  const t = new TestServer();
  let keysBefore: unknown[];
  beforeAll(async () => {
    keysBefore = await startWithSkus(t);
    await t.server.close();
  }, 60_000);
  afterAll(() => t.close());

  it('sends its requests before the server listens, all answered, leaving no key behind, and none after', async () => {
    t.server = await startServer({ dataDir: t.dataDir, port: 0, webRoot: undefined, warmUpBeforeListen: 250, settings: serverSettings({}) });
    const warm = t.server.warmedUpBeforeListen;
    expect(warm?.error).toBeUndefined();
    expect(warm).toMatchObject({ sent: 250, failed: 0 });
    expect(warm?.ms).toBeGreaterThan(0);
    // The server's first request, once it listens, comes after those.
    const page = await t.call('GET', '/api/v1.5/sku/?limit=100&offset=150');
    expect(page.status).toBe(200);
    expect(page.body.results).toHaveLength(100);
    // Its internal key was revoked at the end, and no row was written for it.
    expect(t.server.app.internalKeysAlive()).toBe(0);
    expect(t.snapshot().api_keys).toEqual(keysBefore);
    // The other tasks ran before listening too (every schema compiled), and the requests' warm-up
    // after listening is not added on top.
    const runs = await t.server.app.warmedUp();
    expect(runs.map((r) => r.name)).toEqual(expect.arrayContaining(['model versions', 'skus by name', 'schemas', 'requests before listening']));
    expect(runs.map((r) => r.name)).not.toContain('requests');
    expect(runs.filter((r) => r.error)).toEqual([]);
    expect(t.server.app.lazySchemas.pendingCount).toBe(0);
    await t.server.close();
  });

  it('SHELF_AUDIT_WARM_UP_BEFORE_LISTEN overrides the entry\'s default: 0 turns it off', async () => {
    t.server = await startServer({ dataDir: t.dataDir, port: 0, webRoot: undefined, warmUpBeforeListen: 250, settings: serverSettings({ SHELF_AUDIT_WARM_UP_BEFORE_LISTEN: '0' }) });
    expect(t.server.warmedUpBeforeListen).toBeNull();
    await t.server.close();
    t.server = await startServer({ dataDir: t.dataDir, port: 0, webRoot: undefined, settings: serverSettings({ SHELF_AUDIT_WARM_UP_BEFORE_LISTEN: '40' }) });
    expect(t.server.warmedUpBeforeListen).toMatchObject({ sent: 40, failed: 0 });
    await t.server.close();
  });

  it('the desktop app\'s server (hostServer) does not warm before listening, but after', async () => {
    const hosted = await hostServer({ dataDir: t.dataDir, port: 0, owner: 'desktop app' });
    try {
      expect(hosted.warmedUpBeforeListen).toBe(0);
    } finally {
      await hosted.stop();
    }
    // What hostServer starts: no warm-up before listening; the requests' warm-up after it instead.
    t.server = await startServer({ dataDir: t.dataDir, port: 0, webRoot: undefined, settings: serverSettings({}) });
    expect(t.server.warmedUpBeforeListen).toBeNull();
    const runs = await t.server.app.warmedUp();
    expect(runs.find((r) => r.name === 'requests')?.result).toEqual({ sent: WARM_UP_REQUESTS, failed: 0 });
  });
});
