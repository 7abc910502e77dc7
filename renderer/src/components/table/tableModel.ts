// Search, sort and paging of a list held in memory (small lists the collections store holds whole);
// big lists page, sort and search on the server (serverPage.ts).

export interface ColumnSpec<T> {
  key: string;
  label: string;
  /** The value searched and sorted by. */
  value(row: T): string | number | null | undefined;
  sortable?: boolean;
  /** The API field a server-side list sorts by for this column (default: the key). */
  field?: string;
}

export type SortDirection = 'ascending' | 'descending';

export interface TableView {
  search: string;
  sortKey: string | null;
  direction: SortDirection;
  page: number;
  pageSize: number;
}

export interface TableSlice<T> {
  rows: T[];
  total: number;
  page: number;
  pageCount: number;
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

function compareValues(a: string | number | null | undefined, b: string | number | null | undefined): number {
  // Blank values sort last whichever the direction, so they never hide the data.
  const aBlank = a === null || a === undefined || a === '';
  const bBlank = b === null || b === undefined || b === '';
  if (aBlank || bBlank) return aBlank === bBlank ? 0 : aBlank ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return collator.compare(String(a), String(b));
}

export function applyTable<T>(items: readonly T[], columns: readonly ColumnSpec<T>[], view: TableView): TableSlice<T> {
  const needle = view.search.trim().toLocaleLowerCase();
  let rows = needle
    ? items.filter((row) =>
        columns.some((c) => {
          const v = c.value(row);
          return v !== null && v !== undefined && String(v).toLocaleLowerCase().includes(needle);
        }),
      )
    : [...items];
  const column = columns.find((c) => c.key === view.sortKey);
  if (column) {
    const sign = view.direction === 'ascending' ? 1 : -1;
    rows = rows
      .map((row, index) => ({ row, index }))
      .sort((x, y) => {
        const vx = column.value(x.row);
        const vy = column.value(y.row);
        const blank = (v: unknown) => v === null || v === undefined || v === '';
        if (blank(vx) || blank(vy)) return compareValues(vx, vy) || x.index - y.index;
        return sign * compareValues(vx, vy) || x.index - y.index;
      })
      .map((e) => e.row);
  }
  const total = rows.length;
  const pageCount = Math.max(1, Math.ceil(total / view.pageSize));
  const page = Math.min(Math.max(1, view.page), pageCount);
  const start = (page - 1) * view.pageSize;
  return { rows: rows.slice(start, start + view.pageSize), total, page, pageCount };
}

/** Clicking a header: a new column sorts ascending, the same column flips. */
export function toggleSort(view: TableView, key: string): TableView {
  if (view.sortKey === key)
    return { ...view, direction: view.direction === 'ascending' ? 'descending' : 'ascending', page: 1 };
  return { ...view, sortKey: key, direction: 'ascending', page: 1 };
}
