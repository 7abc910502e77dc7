// The app-wide store instances, wired to IndexedDB. Tests build their own with the factories.
import { useEffect } from 'react';
import type { Collection } from '../api/endpoints';
import { dexieListCache } from '../db/listCache';
import { createCollectionsStore, listOf } from './collections';
import { useSession } from './session';

export const collectionsStore = createCollectionsStore(dexieListCache);

/** A v1.5 list, loaded when a screen first needs it; `reload` after a change. */
export function useCollection<C extends Collection>(c: C) {
  const api = useSession((s) => s.api);
  const list = collectionsStore((s) => listOf(s, c));
  useEffect(() => {
    void collectionsStore.getState().load(api, c);
  }, [api, c]);
  return { ...list, reload: () => collectionsStore.getState().reload(api, c) };
}
