// SHARE_OF_SPACE: each SKU's share of the scene's facings and of the shelf width its facings occupy
// (widths in each photo's pixels, in the bay's for a bay's facings, each counted once). Unknown
// products count in the totals and appear as sku_id null.
import type { SceneAnalysis } from '../../recognition/analysis.js';
import { sceneFacings } from '../../recognition/bay/facings.js';

import type { ShareOfSpace } from './bodies.js';

export type { ShareOfSpace };

export function buildShareOfSpace(analysis: SceneAnalysis): ShareOfSpace {
  const products = sceneFacings(analysis);
  const totalWidth = products.reduce((s, p) => s + (p.x2 - p.x1), 0);
  const by = new Map<string | null, { count: number; width: number }>();
  for (const p of products) {
    const e = by.get(p.sku_id) ?? { count: 0, width: 0 };
    e.count += 1;
    e.width += p.x2 - p.x1;
    by.set(p.sku_id, e);
  }
  const round = (v: number) => Math.round(v * 10_000) / 10_000;
  return [...by.entries()]
    .sort((a, b) => (a[0] === null ? 1 : b[0] === null ? -1 : b[1].width - a[1].width || a[0].localeCompare(b[0])))
    .map(([sku_id, e]) => ({
      sku_id,
      share_of_count: round(e.count / products.length),
      share_of_space: totalWidth > 0 ? round(e.width / totalWidth) : 0,
    }));
}
