import type { ListCache } from '../stores/collections';
import { db } from './database';

/** The collections store's saved copies, in IndexedDB. */
export const dexieListCache: ListCache = {
  async read(key) {
    return (await db.cachedLists.get(key))?.items;
  },
  async write(key, items) {
    await db.cachedLists.put({ key, items, savedAt: Date.now() });
  },
};
