// One picture per SKU for tables, planogram cells and visit boxes: its first reference image.
// Looked up once per SKU and shared, since many cells show the same product.
import { create } from 'zustand';
import type { ApiClient } from '../api/client';
import { listSkuImages } from '../api/endpoints';

interface SkuPicturesState {
  urls: Record<string, string | null>;
  request(api: ApiClient, sku: string): void;
  forget(sku: string): void;
}

export const skuPicturesStore = create<SkuPicturesState>()((set, get) => {
  const pending = new Set<string>();
  return {
    urls: {},
    request(api, sku) {
      if (sku in get().urls || pending.has(sku)) return;
      pending.add(sku);
      listSkuImages(api, sku)
        .then((images) => set((s) => ({ urls: { ...s.urls, [sku]: images[0] ? images[0].url : null } })))
        // Remembered as "no picture" so a failing lookup is not repeated on every render.
        .catch(() => set((s) => ({ urls: { ...s.urls, [sku]: null } })))
        .finally(() => pending.delete(sku));
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
