// The facings of a scene, each counted once (docs/recognition.md, "Bays"). The boxes of the photos
// joined into the bay are carried into the bay frame; boxes of different photos that land on the same
// place are one facing. A product cut by one photo's edge and whole in the next is one facing too: its
// cut box lies mostly inside the whole one. Each facing keeps every view it was seen in; the best view
// (not cut by the frame, highest scores) stands for it, and its SKU is the one a reviewer gave any of
// its views, else the one its views' identification scores back most, the others kept as alternatives.
// Shelves and positions are found again across the bay. Photos not joined are racks of their own.
// Plain data in, plain data out: reports, the review and the bench call it on stored analyses.
import type { ProductFound, SceneAnalysis } from '../analysis.js';
import { groupIntoShelves } from '../shelves.js';
import { iou } from '../detector/nms.js';
import { area, intersection, invert, mapBox, type Box, type H } from './homography.js';
import { CUT_FLOOR, CUT_MARGIN } from '../identification/cut-by-frame.js';

/** One photo's box a facing was seen as. */
export interface FacingView {
  image: string;
  /** Index of the product in that photo's analysis. */
  index: number;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  sku_id: string | null;
  score: number;
  sku_score: number;
  /** Cut by the photo's edge. */
  cut: boolean;
}

export interface Facing extends ProductFound {
  /** The photo of the view that stands for the facing; x1..y2 are in bay pixels when `in_bay`, else in this photo's. */
  image: string;
  in_bay: boolean;
  views: FacingView[];
  /** SKUs other views were identified as, with their summed scores, best first. */
  alternatives: { sku_id: string; score: number }[];
}

const MERGE_IOU = 0.3;
const SAME_SKU_IOU = 0.15; // bench: 12 real bays, mean |bay - whole| 9.8 -> 9.5; 0.1 and 0.2 did less
const CUT_INSIDE = 0.6; // a cut box lying this much inside another one is the same product
const CUT_VOTE = 0.25;
// A box this close (share of the side) to the photo's edge is cut by it: the detector's box of a pack the
// frame cuts often stops a few pixels short of the edge (1.06 % of the side on a bench bay). 2 % against
// 1 %, on the bench's 12 real bays (true placement): the bay's count in the overlaps beyond what either
// photo saw there 12 -> 10 facings, |bay - whole| there 43 -> 38; the composed shelf's counts unchanged.
const EDGE = 0.02;
// A place this far (share of the side) inside another photo's frame is seen whole by that photo.
const SEEN_WHOLE = 0.02;
// The clearest view's best candidate when a facing's views agree on it (agreedCandidate): above the
// identifier's open-set floor (CUT_FLOOR), below its 0.8 "similar" sureness. Measured on bays of 2
// photos: the composed shelf's agreed facings, all right, had 0.72 to 0.95; on 4 SKU-110K shelves (no
// product in the catalog) the 4 agreed facings, all wrong, had 0.60 to 0.64 (at the floor, 0.6, they
// took 4 false identifications to the identifier's 6 on 498 facings).
const AGREED_FLOOR = Math.max(CUT_FLOOR, 0.7);

type Item = FacingView & { bay: Box; reviewed: boolean; suggestions: NonNullable<ProductFound['suggestions']> };

function quality(v: Item): number {
  return (v.cut ? 0 : 2) + v.score + 0.5 * v.sku_score;
}

function decideSku(views: readonly Item[]): { sku_id: string | null; sku_score: number; alternatives: Facing['alternatives'] } {
  const reviewed = views.filter((v) => v.reviewed);
  const votes = new Map<string, number>();
  // A view cut by its photo's edge shows part of the pack: its identification counts little while a
  // whole view of the facing says otherwise.
  const whole = views.some((v) => !v.cut && v.sku_id !== null);
  const weight = (v: Item) => (v.cut && whole ? CUT_VOTE : 1);
  for (const v of views) if (v.sku_id !== null) votes.set(v.sku_id, (votes.get(v.sku_id) ?? 0) + weight(v) * Math.max(v.sku_score, 1e-3));
  const ranked = [...votes.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  let sku: string | null;
  if (reviewed.length > 0) sku = [...reviewed].sort((a, b) => quality(b) - quality(a))[0].sku_id;
  else sku = ranked[0]?.[0] ?? agreedCandidate(views);
  // Taken on its views' agreement (none identified it): the surest of them.
  const own = views.some((v) => v.sku_id === sku) ? views.filter((v) => v.sku_id === sku) : views;
  return {
    sku_id: sku,
    sku_score: own.length ? Math.max(...own.map((v) => v.sku_score)) : 0,
    alternatives: ranked.filter(([s]) => s !== sku).map(([sku_id, score]) => ({ sku_id, score: Math.round(score * 1000) / 1000 })),
  };
}

/**
 * The SKU a facing that every photo left unknown is taken for: the best candidate its views agree on.
 * Each photo's identifier wants a sureness one view of a pack often misses (a photo of a bay is a cut,
 * at another scale: the composed bench shelf left a Minute Maid unknown in both photos of a bay with
 * 0.95 and 0.59 for it, while the whole photo identified it). Two or more photos putting the same SKU
 * first, with none putting another first, and the clearest view (a whole one where there is one)
 * leading its next candidate as the identifier's open-set test asks (identification/cut-by-frame.ts)
 * from a higher floor (AGREED_FLOOR), is taken instead of that sureness. A facing one photo alone saw
 * stays as its identifier left it.
 */
function agreedCandidate(views: readonly Item[]): string | null {
  const tops = views.filter((v) => v.suggestions.length > 0);
  if (tops.length < 2) return null;
  const sku = tops[0].suggestions[0].sku_id;
  if (tops.some((v) => v.suggestions[0].sku_id !== sku)) return null;
  const lead = (v: Item) => v.suggestions[0].score - (v.suggestions[1]?.score ?? 0);
  const whole = tops.filter((v) => !v.cut);
  const clearest = [...(whole.length > 0 ? whole : tops)].sort((a, b) => b.suggestions[0].score - a.suggestions[0].score)[0];
  return clearest.suggestions[0].score >= AGREED_FLOOR && lead(clearest) >= CUT_MARGIN ? sku : null;
}

/** The merged facings of a scene: the bay's (rack 0) then each photo not joined (racks 1, 2...). */
export function sceneFacings(analysis: SceneAnalysis): Facing[] {
  return mergeScene(analysis).facings;
}

/**
 * The merged facings, and the views not counted: a box cut by its photo's edge, alone at its place,
 * where another joined photo sees that place whole and found no product there (notSeenElsewhere).
 */
export function mergeScene(analysis: SceneAnalysis): { facings: Facing[]; passed: FacingView[] } {
  const bay = analysis.bay;
  const joined = new Map((bay?.photos ?? []).filter((p) => p.joined && p.transform).map((p) => [p.image, p.transform!]));
  if (joined.size < 2) return { facings: analysis.images.flatMap((img) => img.products.map((p, index) => single(img.image, img.width, img.height, p, index, p.rack_index))), passed: [] };

  const items: Item[] = [];
  const loose: Facing[] = [];
  let rack = 1;
  for (const img of analysis.images) {
    const h = joined.get(img.image);
    if (!h) {
      const r = rack++;
      loose.push(...img.products.map((p, index) => single(img.image, img.width, img.height, { ...p }, index, r)));
      continue;
    }
    for (const [index, p] of img.products.entries()) {
      const b = mapBox(h, p);
      if (!b) continue;
      items.push({ ...view(img.image, img.width, img.height, p, index), bay: b, reviewed: p.reviewed === true, suggestions: p.suggestions ?? [] });
    }
  }
  // Cross-photo pairs, strongest first, joined while their groups share no photo.
  const pairs: { i: number; j: number; s: number }[] = [];
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const a = items[i], b = items[j];
      if (a.image === b.image) continue;
      const inter = intersection(a.bay, b.bay);
      if (inter === 0) continue;
      const v = iou(a.bay, b.bay);
      const small = area(a.bay) < area(b.bay) ? a : b;
      const inside = inter / Math.max(1e-9, area(small.bay));
      if (v >= MERGE_IOU) pairs.push({ i, j, s: v });
      else if (small.cut && inside >= CUT_INSIDE) pairs.push({ i, j, s: inside * MERGE_IOU });
      // Two photos' boxes of one SKU that overlap loosely are one product drawn a little differently
      // (another scale to the detector, a few pixels of registration error), not two side by side:
      // neighbouring facings barely overlap.
      else if (a.sku_id === b.sku_id && v >= SAME_SKU_IOU) pairs.push({ i, j, s: v });
    }
  }
  pairs.sort((x, y) => y.s - x.s);
  const group = items.map((_, i) => i);
  const find = (i: number): number => (group[i] === i ? i : (group[i] = find(group[i])));
  const photosOf = new Map<number, Set<string>>(items.map((it, i) => [i, new Set([it.image])]));
  for (const { i, j } of pairs) {
    const gi = find(i), gj = find(j);
    if (gi === gj) continue;
    const pi = photosOf.get(gi)!, pj = photosOf.get(gj)!;
    if ([...pj].some((p) => pi.has(p))) continue;
    group[gj] = gi;
    for (const p of pj) pi.add(p);
    photosOf.delete(gj);
  }
  const groups = new Map<number, Item[]>();
  for (const [i, it] of items.entries()) {
    const g = find(i);
    groups.set(g, [...(groups.get(g) ?? []), it]);
  }
  const frames = analysis.images.flatMap((img) => {
    const h = joined.get(img.image);
    const back = h ? invert(h) : null;
    return back ? [{ image: img.image, width: img.width, height: img.height, back }] : [];
  });
  const passed: FacingView[] = [];
  const counted = [...groups.values()].filter((views) => {
    if (!seenBetterElsewhere(views, frames)) return true;
    passed.push(strip(views[0]));
    return false;
  });
  const merged = counted.map((views) => {
    views.sort((a, b) => quality(b) - quality(a));
    const best = views[0];
    const sku = decideSku(views);
    return {
      ...best.bay,
      score: best.score,
      sku_id: sku.sku_id,
      sku_score: sku.sku_score,
      suggestions: undefined as ProductFound['suggestions'],
      image: best.image,
      views: views.map(strip),
      alternatives: sku.alternatives,
    };
  });
  const layout = groupIntoShelves(merged);
  const bayFacings: Facing[] = layout.placed.map((p) => ({ ...p.item, rack_index: 0, shelf_index: p.shelf, position: p.position, in_bay: true }));
  return { facings: [...bayFacings, ...loose], passed };
}

const strip = ({ bay: _bay, reviewed: _r, suggestions: _s, ...v }: Item): FacingView => v;

/**
 * A facing seen only as a box cut by its photo's edge, at a place another joined photo sees whole (well
 * inside its frame) without finding any product there: the part of a pack at a frame's edge, or a
 * sliver of shelf edge, that the better view shows is not a product (the best view decides). On the
 * bench's 12 real bays (true placement), 24 such facings, 16 of them with no facing on the whole photo
 * either; the 8 others are products the whole view missed. A reviewer's box always counts.
 */
function seenBetterElsewhere(views: readonly Item[], frames: readonly { image: string; width: number; height: number; back: H }[]): boolean {
  if (views.length !== 1 || !views[0].cut || views[0].reviewed) return false;
  const v = views[0];
  return frames.some((f) => {
    if (f.image === v.image) return false;
    // Its box in that photo's pixels (the corners' bounds: all four inside when the bounds are).
    const b = mapBox(f.back, v.bay);
    const mx = f.width * SEEN_WHOLE, my = f.height * SEEN_WHOLE;
    return b !== null && b.x1 >= mx && b.y1 >= my && b.x2 <= f.width - mx && b.y2 <= f.height - my;
  });
}

function view(image: string, width: number, height: number, p: ProductFound, index: number): FacingView {
  const cut = p.x1 <= width * EDGE || p.y1 <= height * EDGE || p.x2 >= width * (1 - EDGE) || p.y2 >= height * (1 - EDGE);
  return { image, index, x1: p.x1, y1: p.y1, x2: p.x2, y2: p.y2, sku_id: p.sku_id, score: p.score, sku_score: p.sku_score, cut };
}

function single(image: string, width: number, height: number, p: ProductFound, index: number, rack: number): Facing {
  return { ...p, rack_index: rack, image, in_bay: false, views: [view(image, width, height, p, index)], alternatives: [] };
}

/** The bay frame's shelves: one box per shelf of the bay's facings. */
export function bayShelves(facings: readonly Facing[]): Box[] {
  return groupIntoShelves(facings.filter((f) => f.in_bay)).shelves;
}
