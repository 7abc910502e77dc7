// What a freshly started server prepares as it starts listening (http/warm-up.ts): the model versions
// and the first pages of the lists the screens open on. The lists' answers are the same whether a page
// is read through the index (the first pages) or sliced from the whole order (further ones).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from './harness.js';

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
