import { database } from './lazyDatabase';

/** Saved copies of list pages, shown (marked stale) when the server cannot be reached. */
export interface ListCache {
  read(key: string): Promise<unknown[] | undefined>;
  write(key: string, items: unknown[]): Promise<void>;
}

/** The saved copies, in IndexedDB. */
export const dexieListCache: ListCache = {
  async read(key) {
    return (await (await database()).cachedLists.get(key))?.items;
  },
  async write(key, items) {
    await (await database()).cachedLists.put({ key, items, savedAt: Date.now() });
  },
};
