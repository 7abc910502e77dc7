// Lists of v1.5 records shared by every screen (an SKU's name is needed on the catalog, in the
// planogram editor and on a visit). Each list opens at once from the IndexedDB copy and is then
// refreshed from the server; offline, the copy stays on screen with the error beside it.
import { create } from 'zustand';
import { describeError } from '../api/errors';
import { listAll, type Collection, type CollectionRecord } from '../api/endpoints';
import type { ApiClient } from '../api/client';

export type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

export interface ListState<T = unknown> {
  items: T[];
  status: LoadStatus;
  error: string | null;
  /** True while the items shown come from the saved copy, not yet from the server. */
  fromCache: boolean;
}

export interface ListCache {
  read(key: string): Promise<unknown[] | undefined>;
  write(key: string, items: unknown[]): Promise<void>;
}

export interface CollectionsState {
  lists: Partial<Record<Collection, ListState>>;
  /** Loads a list unless a load of it is already running (screens call it on mount). */
  load(api: ApiClient, c: Collection): Promise<void>;
  /** Loads a list again after a change, after any load already running. */
  reload(api: ApiClient, c: Collection): Promise<void>;
}

const EMPTY: ListState = { items: [], status: 'idle', error: null, fromCache: false };

export function createCollectionsStore(cache: ListCache) {
  const inFlight = new Map<Collection, Promise<void>>();
  return create<CollectionsState>()((set, get) => {
    const patch = (c: Collection, next: Partial<ListState>) =>
      set((s) => ({ lists: { ...s.lists, [c]: { ...(s.lists[c] ?? EMPTY), ...next } } }));

    async function run(api: ApiClient, c: Collection) {
      const current = get().lists[c];
      patch(c, { status: 'loading' });
      if (!current || current.items.length === 0) {
        const saved = await cache.read(c).catch(() => undefined);
        // Only show the saved copy if the server has not answered in the meantime.
        if (saved && get().lists[c]?.status === 'loading') patch(c, { items: saved, fromCache: true });
      }
      try {
        const items = await listAll(api, c);
        patch(c, { items, status: 'ready', error: null, fromCache: false });
        await cache.write(c, items).catch(() => undefined);
      } catch (error) {
        patch(c, { status: 'error', error: describeError(error) });
      }
    }

    return {
      lists: {},
      load(api, c) {
        const running = inFlight.get(c);
        if (running) return running;
        const p = run(api, c).finally(() => {
          if (inFlight.get(c) === p) inFlight.delete(c);
        });
        inFlight.set(c, p);
        return p;
      },
      reload(api, c) {
        const before = inFlight.get(c) ?? Promise.resolve();
        const p = before.then(() => run(api, c)).finally(() => {
          if (inFlight.get(c) === p) inFlight.delete(c);
        });
        inFlight.set(c, p);
        return p;
      },
    };
  });
}

export type CollectionsStore = ReturnType<typeof createCollectionsStore>;

export function listOf<C extends Collection>(state: CollectionsState, c: C): ListState<CollectionRecord[C]> {
  return (state.lists[c] ?? EMPTY) as ListState<CollectionRecord[C]>;
}
