// The shared lists: loaded from the real server, saved, and shown from the saved copy when the
// server cannot be reached.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../main/server/server.js';
import { ApiClient } from '../api/client';
import { createOne } from '../api/endpoints';
import { createCollectionsStore, listOf, type ListCache } from './collections';

const KEY = 'renderer-collections-test-key-0123456789';
let server: RunningServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'renderer-collections-'));
  server = await startServer({ dataDir, port: 0, apiKey: KEY });
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function memoryCache(): ListCache & { saved: Map<string, unknown[]> } {
  const saved = new Map<string, unknown[]>();
  return {
    saved,
    read: async (k) => saved.get(k),
    write: async (k, items) => void saved.set(k, items),
  };
}

describe('collections store', () => {
  it('loads a list, saves it, and reloads it after a change', async () => {
    const api = new ApiClient(server.url, KEY);
    await createOne(api, 'brands', { id: 'b1', name: 'Sprite' });
    const cache = memoryCache();
    const store = createCollectionsStore(cache);
    await store.getState().load(api, 'brands');
    expect(listOf(store.getState(), 'brands')).toMatchObject({ status: 'ready', error: null, fromCache: false });
    expect(listOf(store.getState(), 'brands').items.map((b) => b.name)).toEqual(['Sprite']);
    expect(cache.saved.get('brands')).toHaveLength(1);

    await createOne(api, 'brands', { id: 'b2', name: 'Fanta' });
    await store.getState().reload(api, 'brands');
    expect(listOf(store.getState(), 'brands').items.map((b) => b.name).sort()).toEqual(['Fanta', 'Sprite']);
  });

  it('shares one load between screens asking at the same time', async () => {
    let requests = 0;
    const api = new ApiClient(server.url, KEY, { onResponse: () => void requests++ });
    const store = createCollectionsStore(memoryCache());
    await Promise.all([store.getState().load(api, 'brands'), store.getState().load(api, 'brands')]);
    expect(requests).toBe(1);
  });

  it('keeps the saved copy on screen, with the error, when the server cannot be reached', async () => {
    const cache = memoryCache();
    cache.saved.set('sku', [{ id: 's1', name: 'Saved SKU' }]);
    const store = createCollectionsStore(cache);
    await store.getState().load(new ApiClient('http://127.0.0.1:9', KEY), 'sku');
    const list = listOf(store.getState(), 'sku');
    expect(list.status).toBe('error');
    expect(list.fromCache).toBe(true);
    expect(list.items.map((s) => s.name)).toEqual(['Saved SKU']);
    expect(list.error).toMatch(/cannot be reached/);
  });
});
