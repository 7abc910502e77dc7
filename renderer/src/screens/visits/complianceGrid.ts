// The planogram compliance report arranged as the shelf looks: racks of shelves of positions.
import type { ComplianceAction, CompliancePosition, PositionStatus } from '../../api/types';

export type ComplianceGrid = CompliancePosition[][][];

export function complianceGrid(positions: readonly CompliancePosition[]): ComplianceGrid {
  const grid: ComplianceGrid = [];
  // Extras have no place in the planogram: they go at the end of their shelf.
  const order = (p: CompliancePosition) => p.product_index ?? Number.MAX_SAFE_INTEGER;
  const sorted = [...positions].sort(
    (a, b) => a.rack_index - b.rack_index || a.shelf_index - b.shelf_index || order(a) - order(b),
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

/** An action in words, with product names instead of the ids the report carries. */
export function describeAction(
  a: ComplianceAction,
  skuName: (id: string | null) => string,
  positions: readonly CompliancePosition[] = [],
): string {
  const where =
    a.shelf_index !== null && a.shelf_index !== undefined
      ? ` on ${a.rack_index ? `rack ${a.rack_index + 1}, ` : ''}shelf ${a.shelf_index + 1}`
      : '';
  const facings = (n: number) => `${n} facing${n === 1 ? '' : 's'}`;
  switch (a.type) {
    case 'add':
      return `Add ${facings(a.count)} of ${skuName(a.sku_id)}${where}.`;
    case 'add_facings':
      return `Add ${a.count} more facing${a.count === 1 ? '' : 's'} of ${skuName(a.sku_id)}${where}.`;
    case 'remove':
      return `Remove ${facings(a.count)} of ${skuName(a.sku_id)}${where}.`;
    case 'replace': {
      const at = positions.find(
        (p) => p.rack_index === a.rack_index && p.shelf_index === a.shelf_index && p.product_index === a.product_index,
      );
      const found = (at?.found_sku_ids ?? []).filter((s) => s !== a.sku_id);
      return found.length
        ? `Replace ${found.map(skuName).join(', ')} with ${skuName(a.sku_id)}${where}.`
        : `Put ${skuName(a.sku_id)}${where} in place of what stands there.`;
    }
    default:
      return a.message;
  }
}
