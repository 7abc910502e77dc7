// A searchable, sortable, paginated table with a row action column, over an in-memory list (`rows`)
// or a server list (`source`: the server searches, sorts and pages; only the shown page travels).
import { useEffect, useState, type ReactNode } from 'react';
import { dexieListCache } from '../../db/listCache';
import { saveTablePreference, tablePreference } from '../../db/viewPreferences';
import { ErrorMessage, StaleNotice } from '../StateMessage';
import { useServerPage, type ServerSource } from './serverPage';
import { applyTable, toggleSort, type ColumnSpec, type TableView } from './tableModel';

export interface DataColumn<T> extends ColumnSpec<T> {
  render?(row: T): ReactNode;
}

export interface DataTableProps<T> {
  /** Accessible name of the table, e.g. "Brands". */
  label: string;
  /** The whole list, searched, sorted and paged here; or else `source`. */
  rows?: readonly T[];
  source?: ServerSource<T>;
  columns: readonly DataColumn<T>[];
  rowKey(row: T): string;
  actions?(row: T): ReactNode;
  pageSize?: number;
  initialSort?: string;
  initialDirection?: 'ascending' | 'descending';
  empty: ReactNode;
}

export function DataTable<T>(props: DataTableProps<T>) {
  // Sort and page size come back as the user left them (db/viewPreferences.ts, read synchronously),
  // so a server list asks for one page at once, the right one.
  const [view, setView] = useState<TableView>(() => {
    const saved = tablePreference(props.label);
    return {
      search: '',
      sortKey: saved ? saved.sortKey : (props.initialSort ?? null),
      direction: saved ? saved.direction : (props.initialDirection ?? 'ascending'),
      page: 1,
      pageSize: (saved?.pageSize || props.pageSize) ?? 20,
    };
  });
  useEffect(() => {
    saveTablePreference(props.label, { sortKey: view.sortKey, direction: view.direction, pageSize: view.pageSize });
  }, [props.label, view.sortKey, view.direction, view.pageSize]);
  const server = useServerPage(props.source, view, props.columns, dexieListCache);
  const slice = props.source ? server.slice : applyTable(props.rows ?? [], props.columns, view);
  const empty = props.source ? !server.loading && !server.error && slice.total === 0 && view.search.trim() === '' : (props.rows ?? []).length === 0;
  return (
    <div className="data-table">
      <div className="table-toolbar">
        <label>
          Search {props.label.toLocaleLowerCase()}
          <input
            type="search"
            value={view.search}
            onChange={(e) => setView({ ...view, search: e.target.value, page: 1 })}
          />
        </label>
        <div className="table-meta">
          <span className="table-count" aria-live="polite">
            {slice.total} {slice.total === 1 ? 'item' : 'items'}
          </span>
          <label>
          Rows per page
          <select aria-label={`${props.label}: rows per page`} value={view.pageSize} onChange={(e) => setView({ ...view, pageSize: Number(e.target.value), page: 1 })}>
            {[...new Set([props.pageSize ?? 20, 10, 20, 50, 100])].sort((a, b) => a - b).map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
          </label>
        </div>
      </div>
      {props.source && server.error && (server.stale ? <StaleNotice error={server.error} /> : <ErrorMessage message={server.error} />)}
      {empty ? (
        props.empty
      ) : (
        <table aria-label={props.label} aria-busy={props.source ? server.loading : undefined}>
          <thead>
            <tr>
              {props.columns.map((c) => (
                <th
                  key={c.key}
                  scope="col"
                  aria-sort={view.sortKey === c.key ? view.direction : c.sortable === false ? undefined : 'none'}
                >
                  {c.sortable === false ? (
                    c.label
                  ) : (
                    <button type="button" className="sort" onClick={() => setView(toggleSort(view, c.key))}>
                      {c.label}
                      <span aria-hidden="true">
                        {view.sortKey === c.key ? (view.direction === 'ascending' ? ' ▲' : ' ▼') : ''}
                      </span>
                    </button>
                  )}
                </th>
              ))}
              {props.actions && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {slice.rows.map((row) => (
              <tr key={props.rowKey(row)}>
                {props.columns.map((c) => (
                  <td key={c.key}>{c.render ? c.render(row) : (c.value(row) ?? '')}</td>
                ))}
                {props.actions && <td className="row-actions">{props.actions(row)}</td>}
              </tr>
            ))}
            {slice.rows.length === 0 && !(props.source && server.loading) && (
              <tr>
                <td colSpan={props.columns.length + (props.actions ? 1 : 0)}>No match for “{view.search}”.</td>
              </tr>
            )}
          </tbody>
        </table>
      )}
      {slice.pageCount > 1 && (
        <nav className="pagination" aria-label={`${props.label} pages`}>
          <button type="button" disabled={slice.page <= 1} onClick={() => setView({ ...view, page: slice.page - 1 })}>
            Previous page
          </button>
          <span>
            Page {slice.page} of {slice.pageCount}
          </span>
          <button
            type="button"
            disabled={slice.page >= slice.pageCount}
            onClick={() => setView({ ...view, page: slice.page + 1 })}
          >
            Next page
          </button>
        </nav>
      )}
    </div>
  );
}
