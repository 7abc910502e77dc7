// REALOGRAM: per photo, every product box (centre x, y and size, original pixels) with its SKU and
// shelf, and one box per shelf.
import type { SceneAnalysis } from '../../recognition/analysis.js';
import type { RealogramImage } from './bodies.js';

export type { RealogramImage } from './bodies.js';

const r1 = (v: number) => Math.round(v * 10) / 10;

export function buildRealogram(analysis: SceneAnalysis, skuNames: ReadonlyMap<string, string>): RealogramImage[] {
  return analysis.images.map((img) => ({
    image: img.image,
    width: img.width,
    height: img.height,
    annotations: img.products.map((p) => ({
      sku_id: p.sku_id,
      name: p.sku_id === null ? null : (skuNames.get(p.sku_id) ?? null),
      x: r1((p.x1 + p.x2) / 2),
      y: r1((p.y1 + p.y2) / 2),
      w: r1(p.x2 - p.x1),
      h: r1(p.y2 - p.y1),
      score: Math.round(p.score * 1000) / 1000,
      sku_score: Math.round(p.sku_score * 1000) / 1000,
      shelf_index: p.shelf_index,
    })),
    shelf_annotations: img.shelves.map((s) => ({ x1: r1(s.x1), y1: r1(s.y1), x2: r1(s.x2), y2: r1(s.y2) })),
  }));
}
