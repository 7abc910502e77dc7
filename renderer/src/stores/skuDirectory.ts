// SKUs the screens name (planogram cells, must-have products, a visit's reports), fetched by id on
// demand rather than the whole catalog (recordDirectory.ts). Pickers search the catalog on the server
// (useSkuSearch), and what they find is kept for its names.
import type { Sku } from '../api/types';
import { createRecordDirectory, useDirectory } from './recordDirectory';
import { useServerSearch, type SearchResult } from './serverSearch';

export const skuDirectory = createRecordDirectory('sku');

/** The SKUs with these ids, as they arrive (a missing one is unknown or still loading). */
export function useSkus(ids: readonly string[]): Map<string, Sku> {
  return useDirectory(skuDirectory, ids);
}

/** The first `limit` SKUs by name whose name, customer id, EAN or id contains `term`, searched on the server. */
export function useSkuSearch(term: string, limit = 30): SearchResult<Sku> {
  return useServerSearch('sku', term, limit, (found) => skuDirectory.getState().put(found));
}
