// Records a screen names by id (an SKU's brand, a display's planogram, a planogram cell's product),
// fetched on demand rather than as whole lists: `?id__in=` asks the server for the few a screen shows,
// in batches, each id once. Ids asked for in the same moment (one render's effects) share a request,
// so a page of rows costs one request per kind of record it names.
import { useEffect } from 'react';
import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { ApiClient } from '../api/client';
import { listPage, type Collection, type CollectionRecord } from '../api/endpoints';
import { useSession } from './session';

/** Ids per request: keeps the query string well under any server or proxy limit. */
const BATCH = 100;

interface DirectoryState<T> {
  byId: Record<string, T>;
  request(api: ApiClient, ids: readonly string[]): void;
  /** Records just read (a search) or changed: shown with these values. */
  put(records: readonly T[]): void;
  /** Forgets every record (after a save that may have renamed some): the screens ask again. */
  clear(): void;
}

export type RecordDirectory<T> = UseBoundStore<StoreApi<DirectoryState<T>>>;

export function createRecordDirectory<C extends Collection>(collection: C): RecordDirectory<CollectionRecord[C]> {
  type T = CollectionRecord[C];
  return create<DirectoryState<T>>()((set, get) => {
    const pending = new Set<string>();
    let queued: { api: ApiClient; ids: string[] } | null = null;
    const merge = (records: readonly T[]) =>
      set((s) => ({ byId: { ...s.byId, ...Object.fromEntries(records.map((r) => [r.id, r])) } }));

    function flush() {
      const { api, ids } = queued!;
      queued = null;
      for (let i = 0; i < ids.length; i += BATCH) {
        const batch = ids.slice(i, i + BATCH);
        listPage(api, collection, { id__in: batch.join(','), limit: BATCH })
          .then((page) => merge(page.results))
          .catch(() => undefined)
          .finally(() => batch.forEach((id) => pending.delete(id)));
      }
    }

    return {
      byId: {},
      request(api, ids) {
        const missing = [...new Set(ids)].filter((id) => id && !(id in get().byId) && !pending.has(id));
        if (missing.length === 0) return;
        for (const id of missing) pending.add(id);
        if (queued && queued.api === api) queued.ids.push(...missing);
        else {
          if (queued) flush();
          queued = { api, ids: missing };
          queueMicrotask(flush);
        }
      },
      put(records) {
        if (records.length > 0) merge(records);
      },
      clear() {
        set({ byId: {} });
      },
    };
  });
}

/** The records of a directory with these ids, as they arrive (a missing one is unknown or still loading). */
export function useDirectory<T>(directory: RecordDirectory<T>, ids: readonly (string | null | undefined)[]): Map<string, T> {
  const api = useSession((s) => s.api);
  const byId = directory((s) => s.byId);
  const key = [...new Set(ids.filter((id): id is string => !!id))].sort().join(',');
  useEffect(() => {
    if (key) directory.getState().request(api, key.split(','));
  }, [api, directory, key]);
  return new Map(Object.entries(byId));
}

/** One directory per collection the screens name records of. */
export const directories = {
  brands: createRecordDirectory('brands'),
  categories: createRecordDirectory('categories'),
  manufacturers: createRecordDirectory('manufacturers'),
  displays: createRecordDirectory('displays'),
  planograms: createRecordDirectory('planograms'),
  mhl: createRecordDirectory('mhl'),
};
export type NamedCollection = keyof typeof directories;

/** Names of records by id, as they arrive; the id itself until then (or for one that cannot be read). */
export function useNames(collection: NamedCollection, ids: readonly (string | null | undefined)[]): (id: string | null | undefined) => string {
  const found = useDirectory(directories[collection] as RecordDirectory<{ id: string; name: string }>, ids);
  return (id) => (id ? (found.get(id)?.name ?? id) : '');
}
