// SKUs the screens name (planogram cells, must-have products), fetched by id on demand rather than the
// whole catalog: `?id__in=` asks the server for the few a screen shows, in batches, once each. Pickers
// search the catalog on the server (useSkuSearch).
import { useEffect } from 'react';
import { create } from 'zustand';
import type { ApiClient } from '../api/client';
import { listPage } from '../api/endpoints';
import type { Sku } from '../api/types';
import { useServerSearch, type SearchResult } from './serverSearch';
import { useSession } from './session';

/** Ids per request: keeps the query string well under any server or proxy limit. */
const BATCH = 100;

interface SkuDirectoryState {
  byId: Record<string, Sku>;
  request(api: ApiClient, ids: readonly string[]): void;
  /** SKUs just read (a search) or changed: shown with these values. */
  put(skus: readonly Sku[]): void;
}

export const skuDirectory = create<SkuDirectoryState>()((set, get) => {
  const pending = new Set<string>();
  return {
    byId: {},
    request(api, ids) {
      const missing = [...new Set(ids)].filter((id) => id && !(id in get().byId) && !pending.has(id));
      for (let i = 0; i < missing.length; i += BATCH) {
        const batch = missing.slice(i, i + BATCH);
        for (const id of batch) pending.add(id);
        listPage(api, 'sku', { id__in: batch.join(','), limit: BATCH })
          .then((page) => set((s) => ({ byId: { ...s.byId, ...Object.fromEntries(page.results.map((r) => [r.id, r])) } })))
          .catch(() => undefined)
          .finally(() => batch.forEach((id) => pending.delete(id)));
      }
    },
    put(skus) {
      if (skus.length > 0) set((s) => ({ byId: { ...s.byId, ...Object.fromEntries(skus.map((r) => [r.id, r])) } }));
    },
  };
});

/** The SKUs with these ids, as they arrive (a missing one is unknown or still loading). */
export function useSkus(ids: readonly string[]): Map<string, Sku> {
  const api = useSession((s) => s.api);
  const byId = skuDirectory((s) => s.byId);
  const key = [...new Set(ids)].sort().join(',');
  useEffect(() => {
    if (key) skuDirectory.getState().request(api, key.split(','));
  }, [api, key]);
  return new Map(Object.entries(byId));
}

/** The first `limit` SKUs by name whose name, customer id, EAN or id contains `term`, searched on the server. */
export function useSkuSearch(term: string, limit = 30): SearchResult<Sku> {
  return useServerSearch('sku', term, limit, (found) => skuDirectory.getState().put(found));
}
