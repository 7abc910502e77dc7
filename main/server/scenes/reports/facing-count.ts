// FACING_COUNT: facings per SKU, most first; products that were not identified are one item
// {"sku_id": null} at the end. A bay's facings count once however many photos show them.
import type { SceneAnalysis } from '../../recognition/analysis.js';
import { sceneFacings } from '../../recognition/bay/facings.js';

import type { FacingCount } from './bodies.js';

export type { FacingCount };

export function facingCounts(skuIds: readonly (string | null)[]): Map<string | null, number> {
  const counts = new Map<string | null, number>();
  for (const id of skuIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

export function buildFacingCount(analysis: SceneAnalysis): FacingCount {
  const counts = facingCounts(sceneFacings(analysis).map((p) => p.sku_id));
  const known = [...counts.entries()]
    .filter((e): e is [string, number] => e[0] !== null)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([sku_id, count]) => ({ sku_id, count }));
  const unknown = counts.get(null);
  return unknown ? [...known, { sku_id: null, count: unknown }] : known;
}
