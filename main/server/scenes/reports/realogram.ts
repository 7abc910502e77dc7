// REALOGRAM: per photo, every product box (centre x, y and size, original pixels) with its SKU and
// shelf, and one box per shelf. Photos joined into a bay also say, for each box, the merged facing it
// is a view of (its box in bay pixels, whether this view is the one counted) and carry their photo ->
// bay homography; photos not joined say why.
import type { SceneAnalysis } from '../../recognition/analysis.js';
import { bayShelves, mergeScene } from '../../recognition/bay/facings.js';
import type { RealogramAnnotation, RealogramImage } from './bodies.js';

export type { RealogramImage } from './bodies.js';

const r1 = (v: number) => Math.round(v * 10) / 10;
const r3 = (v: number) => Math.round(v * 1000) / 1000;

export function buildRealogram(analysis: SceneAnalysis, skuNames: ReadonlyMap<string, string>): RealogramImage[] {
  const name = (id: string | null) => (id === null ? null : (skuNames.get(id) ?? null));
  const join = new Map((analysis.bay?.photos ?? []).map((p) => [p.image, p]));
  const { facings, passed } = mergeScene(analysis);
  // Boxes cut by their photo's edge where another photo sees the place whole and found nothing: not counted.
  const notCounted = new Set(passed.map((v) => `${v.image}/${v.index}`));
  // Each photo's product (by index) -> the facing it is a view of.
  const viewOf = new Map<string, { facing: number; counted: boolean }>();
  const bayFacings = facings.filter((f) => f.in_bay);
  for (const [i, f] of bayFacings.entries()) {
    for (const [k, v] of f.views.entries()) viewOf.set(`${v.image}/${v.index}`, { facing: i, counted: k === 0 });
  }
  const byPhoto = new Map<string, Map<number, (typeof facings)[number]>>();
  for (const f of facings) {
    if (f.in_bay) continue;
    const m = byPhoto.get(f.image) ?? new Map();
    m.set(f.views[0].index, f);
    byPhoto.set(f.image, m);
  }
  const shelves = bayShelves(facings);
  const hasBay = (analysis.bay?.photos ?? []).filter((p) => p.joined && p.transform).length >= 2;
  let rack = 1;
  return analysis.images.map((img) => {
    const j = join.get(img.image);
    const joined = j?.joined === true && hasBay;
    const annotations = img.products.map((p, index): RealogramAnnotation => {
      const base: RealogramAnnotation = {
        sku_id: p.sku_id,
        name: name(p.sku_id),
        x: r1((p.x1 + p.x2) / 2),
        y: r1((p.y1 + p.y2) / 2),
        w: r1(p.x2 - p.x1),
        h: r1(p.y2 - p.y1),
        score: r3(p.score),
        sku_score: r3(p.sku_score),
        shelf_index: p.shelf_index,
      };
      const v = joined ? viewOf.get(`${img.image}/${index}`) : undefined;
      if (!v && joined && notCounted.has(`${img.image}/${index}`)) return { ...base, counted: false };
      if (!v) return { ...base, shelf_index: byPhoto.get(img.image)?.get(index)?.shelf_index ?? p.shelf_index };
      const f = bayFacings[v.facing];
      return {
        ...base,
        // The merged facing's SKU and shelf: what was counted.
        sku_id: f.sku_id,
        name: name(f.sku_id),
        shelf_index: f.shelf_index,
        facing: v.facing,
        counted: v.counted,
        bay_x: r1((f.x1 + f.x2) / 2),
        bay_y: r1((f.y1 + f.y2) / 2),
        bay_w: r1(f.x2 - f.x1),
        bay_h: r1(f.y2 - f.y1),
        alternatives: f.alternatives,
      };
    });
    const own = { image: img.image, width: img.width, height: img.height, annotations, shelf_annotations: img.shelves.map((s) => ({ x1: r1(s.x1), y1: r1(s.y1), x2: r1(s.x2), y2: r1(s.y2) })) };
    if (!j) return own;
    // Racks as sceneFacings numbers them: the bay 0, photos not joined 1, 2... (by photo when there is no bay).
    if (!joined) return { ...own, joined: false, rack_index: hasBay ? rack++ : analysis.images.indexOf(img), transform: null, join_message: j.message };
    return { ...own, joined: true, rack_index: 0, transform: j.transform, join_message: null, bay_shelf_annotations: shelves.map((s) => ({ x1: r1(s.x1), y1: r1(s.y1), x2: r1(s.x2), y2: r1(s.y2) })) };
  });
}
