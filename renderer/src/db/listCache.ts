import { db } from './database';

/** Saved copies of list pages, shown (marked stale) when the server cannot be reached. */
export interface ListCache {
  read(key: string): Promise<unknown[] | undefined>;
  write(key: string, items: unknown[]): Promise<void>;
}

/** The saved copies, in IndexedDB. */
export const dexieListCache: ListCache = {
  async read(key) {
    return (await db.cachedLists.get(key))?.items;
  },
  async write(key, items) {
    await db.cachedLists.put({ key, items, savedAt: Date.now() });
  },
};
