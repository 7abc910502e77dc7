// A table page fetched from the server: the view (search, sort, page) becomes the list's DRF query
// (`search`, `ordering`, `limit`, `offset`), so a screen downloads the rows it shows and no more. The
// last page seen for each query is kept in IndexedDB and shown, marked stale, when the server cannot
// be reached.
import { useEffect, useState } from 'react';
import { describeError } from '../../api/errors';
import type { Query } from '../../api/client';
import type { ListCache } from '../../db/listCache';
import type { ColumnSpec, TableSlice, TableView } from './tableModel';

export interface ServerPage<T> {
  count: number;
  results: T[];
}

export interface ServerSource<T> {
  /** Fetches one page of the list with these query parameters (filters added by the source). */
  load(query: Query, signal: AbortSignal): Promise<ServerPage<T>>;
  /** Names the source's list (with its fixed filters) for the saved copies. */
  key: string;
  /** Changes when the list has changed (after a save), to fetch the page again. */
  version?: number;
}

/** The list query for a view; a column sorts by its `field` (the API field), else by its key. */
export function queryOf<T>(view: TableView, columns: readonly ColumnSpec<T>[]): Query {
  const column = columns.find((c) => c.key === view.sortKey && c.sortable !== false);
  const field = column ? (column.field ?? column.key) : null;
  const search = view.search.trim();
  return {
    limit: view.pageSize,
    offset: (view.page - 1) * view.pageSize,
    ...(search ? { search } : {}),
    ...(field ? { ordering: `${view.direction === 'descending' ? '-' : ''}${field}` } : {}),
  };
}

export interface ServerPageState<T> {
  slice: TableSlice<T>;
  loading: boolean;
  error: string | null;
  /** True while the rows shown are the saved copy. */
  stale: boolean;
}

const SEARCH_PAUSE_MS = 250;

export function useServerPage<T>(source: ServerSource<T> | undefined, view: TableView, columns: readonly ColumnSpec<T>[], cache: ListCache): ServerPageState<T> {
  const [state, setState] = useState<{ page: ServerPage<T>; loading: boolean; error: string | null; stale: boolean }>({
    page: { count: 0, results: [] },
    loading: true,
    error: null,
    stale: false,
  });
  const query = queryOf(view, columns);
  const queryKey = JSON.stringify(query);
  useEffect(() => {
    if (!source) return;
    const controller = new AbortController();
    const key = `${source.key}?${queryKey}`;
    setState((s) => ({ ...s, loading: true }));
    // Typing in the search box fetches once the typing pauses; paging and sorting fetch at once.
    const delay = query.search ? SEARCH_PAUSE_MS : 0;
    const timer = setTimeout(() => {
      source
        .load(query, controller.signal)
        .then((page) => {
          setState({ page, loading: false, error: null, stale: false });
          void cache.write(key, [page]).catch(() => undefined);
        })
        .catch(async (error: unknown) => {
          if (controller.signal.aborted) return;
          const saved = (await cache.read(key).catch(() => undefined))?.[0] as ServerPage<T> | undefined;
          setState((s) => ({ page: saved ?? s.page, loading: false, error: describeError(error), stale: saved !== undefined }));
        });
    }, delay);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
    // queryKey stands for query; source identity changes with its key and version only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [source?.key, source?.version, queryKey]);
  const pageCount = Math.max(1, Math.ceil(state.page.count / view.pageSize));
  return {
    slice: { rows: state.page.results, total: state.page.count, page: Math.min(view.page, pageCount), pageCount },
    loading: state.loading,
    error: state.error,
    stale: state.stale,
  };
}
