// The pure parts of the visit screens: filters, the compliance grid, box geometry and colours.
import { describe, expect, it } from 'vitest';
import type { CompliancePosition } from '../../api/types';
import { complianceGrid, describeAction, percent, statusCounts } from './complianceGrid';
import { kpiValuesOf } from './dataVisit';
import { boxRect, colourForSku, PALETTE, skuColours, UNKNOWN_COLOUR } from './skuColours';
import { isFiltered, NO_FILTER, visitQuery } from './visitFilters';

describe('visitQuery', () => {
  it('asks the server for new or acknowledged visits, and nothing for "all"', () => {
    expect(visitQuery({ ...NO_FILTER, status: 'new' })).toEqual({ is_new: true });
    expect(visitQuery({ ...NO_FILTER, status: 'acknowledged' })).toEqual({ is_new: false });
    expect(visitQuery(NO_FILTER)).toEqual({});
    expect(isFiltered(NO_FILTER)).toBe(false);
  });

  it('filters by agent and shop (trimmed), and by a day of the viewer as two instants', () => {
    const q = visitQuery({ status: 'all', agent: ' ann ', shop: 'S2', date: '2026-11-21' });
    expect(q).toMatchObject({ agent: 'ann', shop: 'S2' });
    expect(new Date(q.started_date__gte as string).getTime()).toBe(new Date(2026, 10, 21).getTime());
    expect(new Date(q.started_date__lt as string).getTime()).toBe(new Date(2026, 10, 22).getTime());
    expect(isFiltered({ ...NO_FILTER, date: '2026-11-21' })).toBe(true);
  });
});

describe('complianceGrid', () => {
  const p = (rack: number, shelf: number, index: number, status: CompliancePosition['status']): CompliancePosition => ({
    planogram_record: `${rack}${shelf}${index}`,
    rack_index: rack,
    shelf_index: shelf,
    product_index: index,
    sku_id: 's',
    expected_facings: 2,
    found_facings: 1,
    found_sku_ids: [],
    status,
  });

  it('lays positions out as racks of shelves in product order', () => {
    const grid = complianceGrid([p(0, 1, 3, 'ok'), p(1, 0, 4, 'missing'), p(0, 0, 1, 'extra'), p(0, 0, 0, 'ok')]);
    expect(grid.map((rack) => rack.map((shelf) => shelf.map((x) => x.product_index)))).toEqual([[[0, 1], [3]], [[4]]]);
  });

  it('counts statuses and formats fractions as percentages', () => {
    expect(statusCounts([p(0, 0, 0, 'ok'), p(0, 0, 1, 'ok'), p(0, 0, 2, 'wrong_sku')])).toEqual({
      ok: 2,
      missing: 0,
      wrong_sku: 1,
      fewer_facings: 0,
      extra: 0,
    });
    expect(percent(0.8333)).toBe('83.3%');
    expect(percent(1)).toBe('100%');
  });
});

describe('boxes', () => {
  it('turns a centre box into an SVG rect', () => {
    expect(boxRect({ x: 100, y: 50, w: 40, h: 20 })).toEqual({ x: 80, y: 40, width: 40, height: 20 });
  });

  it('gives each SKU a stable colour of its own, and unknowns their own red', () => {
    expect(colourForSku('sku-1')).toBe(colourForSku('sku-1'));
    expect(colourForSku('sku-1')).not.toBe(colourForSku('sku-2'));
    expect(colourForSku(null)).toBe(UNKNOWN_COLOUR);
    const ids = Array.from({ length: 50 }, (_, i) => `sku-${i}`);
    for (const id of ids) expect(colourForSku(id)).not.toBe(UNKNOWN_COLOUR);
  });
});

describe('skuColours', () => {
  it('gives the SKUs of a screen distinct palette colours whatever order they come in', () => {
    const a = skuColours(['b', null, 'a', 'c', 'a']);
    const b = skuColours(['c', 'b', 'a']);
    expect(['a', 'b', 'c'].map(a)).toEqual(['a', 'b', 'c'].map(b));
    expect(new Set(['a', 'b', 'c'].map(a)).size).toBe(3);
    expect(a(null)).toBe(UNKNOWN_COLOUR);
    expect(PALETTE).not.toContain(UNKNOWN_COLOUR);
  });

  it('falls back to hashed hues beyond the palette', () => {
    const ids = Array.from({ length: PALETTE.length + 3 }, (_, i) => `s${String(i).padStart(2, '0')}`);
    const colours = skuColours(ids);
    expect(colours(ids.at(-1)!)).toBe(colourForSku(ids.at(-1)!));
    expect(colours(ids[0])).toBe(PALETTE[0]);
  });
});

describe('kpiValuesOf', () => {
  it('finds the KPI values of a Data API visit detail', () => {
    const v = { id: 1, cid: 'x', name: '', created_at: '', updated_at: '', kpi_values: [{ kpi: 1, value: 0.5 }] };
    expect(kpiValuesOf(v)).toEqual([{ kpi: 1, value: 0.5 }]);
    expect(kpiValuesOf(null)).toEqual([]);
  });
});

describe('compliance actions and extras', () => {
  const position = (over: Partial<CompliancePosition>): CompliancePosition => ({
    planogram_record: 'r',
    rack_index: 0,
    shelf_index: 0,
    product_index: 0,
    sku_id: 'cola',
    expected_facings: 3,
    found_facings: 0,
    found_sku_ids: [],
    status: 'missing',
    ...over,
  });
  const names: Record<string, string> = { cola: 'Coca-Cola', fanta: 'Fanta' };
  const name = (id: string | null) => (id ? (names[id] ?? id) : 'Unknown product');

  it('puts extras (no planogram place) at the end of their shelf', () => {
    const grid = complianceGrid([
      position({ planogram_record: null, product_index: null, status: 'extra', sku_id: null }),
      position({ product_index: 2 }),
      position({ product_index: 1 }),
    ]);
    expect(grid[0][0].map((p) => p.product_index)).toEqual([1, 2, null]);
  });

  it('words actions with product names and places', () => {
    const base = { rack_index: 0, shelf_index: 1, product_index: 4, message: 'server text' };
    expect(describeAction({ ...base, type: 'add', sku_id: 'cola', count: 3 }, name)).toBe('Add 3 facings of Coca-Cola on shelf 2.');
    expect(describeAction({ ...base, type: 'add_facings', sku_id: 'cola', count: 1 }, name)).toBe('Add 1 more facing of Coca-Cola on shelf 2.');
    expect(describeAction({ ...base, type: 'remove', sku_id: 'fanta', count: 2, rack_index: 1 }, name)).toBe('Remove 2 facings of Fanta on rack 2, shelf 2.');
    const positions = [position({ rack_index: 0, shelf_index: 1, product_index: 4, found_sku_ids: ['fanta'], status: 'wrong_sku' })];
    expect(describeAction({ ...base, type: 'replace', sku_id: 'cola', count: 3 }, name, positions)).toBe('Replace Fanta with Coca-Cola on shelf 2.');
  });
});
