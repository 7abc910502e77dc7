// The first records of a v1.5 list, by name, whose search fields contain a term: what pickers offer
// from lists too long to download (SKUs, displays, brands). Typing asks once it pauses. Pickers of the
// same list opened together (a screen's filters) share one request while it runs.
import { useEffect, useState } from 'react';
import type { ApiClient, Query } from '../api/client';
import { buildPath } from '../api/client';
import { listPage, type Collection, type CollectionRecord } from '../api/endpoints';
import type { Page } from '../api/types';
import { useSession } from './session';

const SEARCH_PAUSE_MS = 250;

export interface SearchResult<T> {
  items: T[];
  loading: boolean;
}

const running = new Map<string, { api: ApiClient; page: Promise<Page<unknown>> }>();

/** One request per list and query while it runs; a picker that goes away only stops listening. */
function sharedPage<C extends Collection>(api: ApiClient, collection: C, query: Query): Promise<Page<CollectionRecord[C]>> {
  const key = buildPath(collection, query);
  const shared = running.get(key);
  if (shared && shared.api === api) return shared.page as Promise<Page<CollectionRecord[C]>>;
  const page = listPage(api, collection, query).finally(() => {
    if (running.get(key)?.page === page) running.delete(key);
  });
  running.set(key, { api, page });
  return page;
}

/** `onFound` sees every page found (the SKU directory keeps them for their names). */
export function useServerSearch<C extends Collection>(
  collection: C,
  term: string,
  limit = 30,
  onFound?: (items: CollectionRecord[C][]) => void,
): SearchResult<CollectionRecord[C]> {
  const api = useSession((s) => s.api);
  const [state, setState] = useState<SearchResult<CollectionRecord[C]>>({ items: [], loading: true });
  useEffect(() => {
    let live = true;
    const search = term.trim();
    setState((s) => ({ ...s, loading: true }));
    const timer = setTimeout(
      () => {
        sharedPage(api, collection, { ordering: 'name', limit, ...(search ? { search } : {}) }).then(
          (page) => {
            if (!live) return;
            onFound?.(page.results);
            setState({ items: page.results, loading: false });
          },
          () => {
            if (live) setState((s) => ({ ...s, loading: false }));
          },
        );
      },
      search ? SEARCH_PAUSE_MS : 0,
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // onFound is a sink for results, not an input of the search.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, collection, term, limit]);
  return state;
}
