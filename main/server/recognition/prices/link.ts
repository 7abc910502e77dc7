// Links each price tag to the facing it prices. A shelf-edge tag sits on the board under its
// product, at the product's left edge or centred under it: the facing just above the tag, on the
// shelf whose products stand on that board. A tag on a peg hangs above or below its product. A tag
// that prints an EAN the catalog knows is that SKU's, whatever stands above it. A tag under a gap
// (the product sold out) is linked to none.
import type { Box } from '../shelves.js';

export interface LinkFacing extends Box {
  sku_id: string | null;
  shelf_index: number;
}

export interface LinkTag extends Box {
  ean: string | null;
}

export interface TagLink {
  /** Index in `facings` of the facing the tag prices, or null. */
  product_index: number | null;
  sku_id: string | null;
  shelf_index: number | null;
}

/**
 * Links every tag (in order). `skuByEan` maps the catalog's EAN-13s (and EAN-8s) to SKU ids; a tag
 * whose EAN it knows is that SKU's, linked to the nearest facing of that SKU when one is in view.
 */
export function linkTags(tags: readonly LinkTag[], facings: readonly LinkFacing[], skuByEan?: ReadonlyMap<string, string>): TagLink[] {
  return tags.map((tag) => {
    const geometric = linkByPlace(tag, facings);
    const sku = tag.ean ? skuByEan?.get(tag.ean) : undefined;
    if (!sku) return geometric;
    if (geometric.product_index !== null && facings[geometric.product_index].sku_id === sku) return geometric;
    // The EAN decides the SKU; the facing is the nearest one of that SKU, if any is in view.
    let best: number | null = null;
    let bestDistance = Infinity;
    facings.forEach((f, i) => {
      if (f.sku_id !== sku) return;
      const d = Math.hypot((f.x1 + f.x2) / 2 - (tag.x1 + tag.x2) / 2, f.y2 - tag.y1);
      if (d < bestDistance) {
        bestDistance = d;
        best = i;
      }
    });
    return { product_index: best, sku_id: sku, shelf_index: best !== null ? facings[best].shelf_index : geometric.shelf_index };
  });
}

/** How far above a tag the bottom of the facing it prices may be, in the facing's heights. */
const MAX_GAP_ABOVE = 0.6;

function linkByPlace(tag: LinkTag, facings: readonly LinkFacing[]): TagLink {
  const tw = tag.x2 - tag.x1;
  const th = tag.y2 - tag.y1;
  const tcx = (tag.x1 + tag.x2) / 2;
  // Facings standing on the tag's board: their bottom a little above the tag's top (or level with it:
  // the board's lip hides the product's foot), within reach horizontally.
  const standsAbove = (f: LinkFacing) => {
    const gap = tag.y1 - f.y2;
    const fh = f.y2 - f.y1;
    return gap > -0.6 * th && gap < Math.max(MAX_GAP_ABOVE * fh, 2 * th) && f.y1 < tag.y1;
  };
  const above: Array<{ i: number; cost: number }> = [];
  facings.forEach((f, i) => {
    if (!standsAbove(f)) return;
    const fw = f.x2 - f.x1;
    const overlap = Math.min(f.x2, tag.x2) - Math.max(f.x1, tag.x1);
    if (overlap <= 0.15 * Math.min(fw, tw)) return;
    // Left-aligned or centred: whichever fits better, in tag widths; the nearer board breaks ties.
    const align = Math.min(Math.abs(f.x1 - tag.x1), Math.abs((f.x1 + f.x2) / 2 - tcx)) / Math.max(tw, 1);
    const gap = Math.abs(tag.y1 - f.y2) / Math.max(f.y2 - f.y1, 1);
    above.push({ i, cost: align + 0.5 * gap });
  });
  if (above.length > 0) {
    const best = above.reduce((a, b) => (b.cost < a.cost ? b : a));
    return { product_index: best.i, sku_id: facings[best.i].sku_id, shelf_index: facings[best.i].shelf_index };
  }
  // Nothing above: a gap on a shelf whose other facings stand on the same board (the tag prices a
  // product not there), or a tag on a peg, with its product hanging just below or above it.
  const neighbours = facings.filter((f) => standsAbove(f) && Math.abs((f.x1 + f.x2) / 2 - tcx) < 4 * Math.max(tw, f.x2 - f.x1));
  if (neighbours.length > 0) {
    const shelf = mostCommon(neighbours.map((f) => f.shelf_index));
    return { product_index: null, sku_id: null, shelf_index: shelf };
  }
  let peg: { i: number; d: number } | null = null;
  facings.forEach((f, i) => {
    const fcx = (f.x1 + f.x2) / 2;
    const fw = f.x2 - f.x1;
    if (Math.abs(fcx - tcx) > 0.6 * Math.max(fw, tw)) return;
    const below = f.y1 - tag.y2;
    const over = tag.y1 - f.y2;
    const d = below >= -0.3 * th ? below : over >= -0.3 * th ? over : Infinity;
    if (d > Math.max(1.5 * th, 0.4 * (f.y2 - f.y1))) return;
    if (!peg || d < peg.d) peg = { i, d };
  });
  if (peg) {
    const { i } = peg;
    return { product_index: i, sku_id: facings[i].sku_id, shelf_index: facings[i].shelf_index };
  }
  return { product_index: null, sku_id: null, shelf_index: null };
}

function mostCommon(values: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
}
