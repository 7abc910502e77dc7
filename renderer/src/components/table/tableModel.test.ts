import { describe, expect, it } from 'vitest';
import { applyTable, toggleSort, type ColumnSpec, type TableView } from './tableModel';

interface Row {
  name: string;
  cid: string | null;
  size: number | null;
}
const columns: ColumnSpec<Row>[] = [
  { key: 'name', label: 'Name', value: (r) => r.name },
  { key: 'cid', label: 'CID', value: (r) => r.cid },
  { key: 'size', label: 'Size', value: (r) => r.size },
];
const rows: Row[] = [
  { name: 'Sprite 0.5', cid: 'SP-05', size: 65 },
  { name: 'cola 10', cid: null, size: 70 },
  { name: 'Cola 2', cid: 'CC-2', size: null },
  { name: 'Fanta', cid: 'FA-1', size: 90 },
];
const view = (v: Partial<TableView> = {}): TableView => ({ search: '', sortKey: null, direction: 'ascending', page: 1, pageSize: 10, ...v });

describe('applyTable', () => {
  it('searches every column, ignoring case', () => {
    expect(applyTable(rows, columns, view({ search: 'COLA' })).rows.map((r) => r.name)).toEqual(['cola 10', 'Cola 2']);
    expect(applyTable(rows, columns, view({ search: 'fa-1' })).rows.map((r) => r.name)).toEqual(['Fanta']);
  });

  it('sorts text naturally and numbers numerically, blanks last in both directions', () => {
    expect(applyTable(rows, columns, view({ sortKey: 'name' })).rows.map((r) => r.name)).toEqual(['Cola 2', 'cola 10', 'Fanta', 'Sprite 0.5']);
    expect(applyTable(rows, columns, view({ sortKey: 'size', direction: 'descending' })).rows.map((r) => r.size)).toEqual([90, 70, 65, null]);
    expect(applyTable(rows, columns, view({ sortKey: 'cid' })).rows.map((r) => r.cid)).toEqual(['CC-2', 'FA-1', 'SP-05', null]);
  });

  it('pages, clamping a page past the end to the last one', () => {
    const many = Array.from({ length: 45 }, (_, i) => ({ name: `n${i}`, cid: null, size: i }));
    const last = applyTable(many, columns, view({ pageSize: 20, page: 9, sortKey: 'size' }));
    expect(last).toMatchObject({ total: 45, page: 3, pageCount: 3 });
    expect(last.rows.map((r) => r.size)).toEqual([40, 41, 42, 43, 44]);
    expect(applyTable([], columns, view()).pageCount).toBe(1);
  });
});

describe('toggleSort', () => {
  it('sorts a new column ascending and flips the same one, back to page 1', () => {
    const a = toggleSort(view({ page: 3 }), 'name');
    expect(a).toMatchObject({ sortKey: 'name', direction: 'ascending', page: 1 });
    expect(toggleSort(a, 'name').direction).toBe('descending');
    expect(toggleSort(toggleSort(a, 'name'), 'cid').direction).toBe('ascending');
  });
});
