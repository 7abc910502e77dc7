// The planogram compliance report arranged as the shelf looks: racks of shelves of positions.
import type { CompliancePosition, PositionStatus } from '../../api/types';

export type ComplianceGrid = CompliancePosition[][][];

export function complianceGrid(positions: readonly CompliancePosition[]): ComplianceGrid {
  const grid: ComplianceGrid = [];
  const sorted = [...positions].sort(
    (a, b) => a.rack_index - b.rack_index || a.shelf_index - b.shelf_index || a.product_index - b.product_index,
  );
  for (const p of sorted) {
    while (grid.length <= p.rack_index) grid.push([]);
    const rack = grid[p.rack_index];
    while (rack.length <= p.shelf_index) rack.push([]);
    rack[p.shelf_index].push(p);
  }
  return grid;
}

export const STATUS_LABEL: Record<PositionStatus, string> = {
  ok: 'OK',
  missing: 'Missing',
  wrong_sku: 'Wrong product',
  fewer_facings: 'Fewer facings',
  extra: 'Extra',
};

export function statusCounts(positions: readonly CompliancePosition[]): Record<PositionStatus, number> {
  const counts: Record<PositionStatus, number> = { ok: 0, missing: 0, wrong_sku: 0, fewer_facings: 0, extra: 0 };
  for (const p of positions) counts[p.status] = (counts[p.status] ?? 0) + 1;
  return counts;
}

export function percent(fraction: number): string {
  return `${Math.round(fraction * 1000) / 10}%`;
}
