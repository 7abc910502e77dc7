// One picture per SKU for tables, planogram cells and visit boxes: its first reference image. Looked
// up once per SKU and shared, since many cells show the same product; the pictures asked for in the
// same moment (a page of rows coming into view) come in one request.
import { create } from 'zustand';
import type { ApiClient } from '../api/client';
import { listFirstSkuImages } from '../api/endpoints';

/** SKUs per request: keeps the query string well under any server or proxy limit. */
const BATCH = 100;

interface SkuPicturesState {
  urls: Record<string, string | null>;
  request(api: ApiClient, sku: string): void;
  forget(sku: string): void;
}

export const skuPicturesStore = create<SkuPicturesState>()((set, get) => {
  const pending = new Set<string>();
  let queued: { api: ApiClient; skus: string[] } | null = null;

  function flush() {
    const { api, skus } = queued!;
    queued = null;
    for (let i = 0; i < skus.length; i += BATCH) {
      const batch = skus.slice(i, i + BATCH);
      listFirstSkuImages(api, batch)
        .then((page) => {
          const found = new Map(page.results.map((image) => [image.sku, image.url]));
          set((s) => ({ urls: { ...s.urls, ...Object.fromEntries(batch.map((sku) => [sku, found.get(sku) ?? null])) } }));
        })
        // Remembered as "no picture" so a failing lookup is not repeated on every render.
        .catch(() => set((s) => ({ urls: { ...s.urls, ...Object.fromEntries(batch.map((sku) => [sku, null])) } })))
        .finally(() => batch.forEach((sku) => pending.delete(sku)));
    }
  }

  return {
    urls: {},
    request(api, sku) {
      if (sku in get().urls || pending.has(sku)) return;
      pending.add(sku);
      if (queued && queued.api === api) queued.skus.push(sku);
      else {
        if (queued) flush();
        queued = { api, skus: [sku] };
        // Each picture asks from its own effect (or when it scrolls into view): wait for the others
        // of the same render before asking.
        queueMicrotask(flush);
      }
    },
    forget(sku) {
      set((s) => {
        const urls = { ...s.urls };
        delete urls[sku];
        return { urls };
      });
    },
  };
});
