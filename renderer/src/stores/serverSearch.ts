// The first records of a v1.5 list, by name, whose search fields contain a term: what pickers offer
// from lists too long to download (SKUs, displays). Typing asks once it pauses.
import { useEffect, useState } from 'react';
import { listPage, type Collection, type CollectionRecord } from '../api/endpoints';
import { useSession } from './session';

const SEARCH_PAUSE_MS = 250;

export interface SearchResult<T> {
  items: T[];
  loading: boolean;
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
    const controller = new AbortController();
    const search = term.trim();
    setState((s) => ({ ...s, loading: true }));
    const timer = setTimeout(
      () => {
        listPage(api, collection, { ordering: 'name', limit, ...(search ? { search } : {}) }, controller.signal).then(
          (page) => {
            onFound?.(page.results);
            setState({ items: page.results, loading: false });
          },
          () => {
            if (!controller.signal.aborted) setState((s) => ({ ...s, loading: false }));
          },
        );
      },
      search ? SEARCH_PAUSE_MS : 0,
    );
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
    // onFound is a sink for results, not an input of the search.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, collection, term, limit]);
  return state;
}
