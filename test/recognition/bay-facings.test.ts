// The merge of a bay's boxes into facings (bay/facings.ts) on analyses written by hand: boxes of two
// photos that land on one place are one facing, a box cut by a photo's edge inside a whole one is the
// same product, views that disagree on the SKU are decided by their scores with the others kept, a
// facing every photo left unknown takes the best candidate its views agree on, a reviewer's SKU decides, a photo not joined is its own rack, and a scene without a bay is counted as
// before.
import { describe, expect, it } from 'vitest';
import type { ProductFound, SceneAnalysis } from '../../main/server/recognition/analysis.js';
import { mergeScene, sceneFacings } from '../../main/server/recognition/bay/facings.js';
import { buildRealogram } from '../../main/server/scenes/reports/realogram.js';
import { reviewBay, type StoredBox } from '../../main/server/scenes/review.js';

const product = (x1: number, sku: string | null, extra: Partial<ProductFound> = {}): ProductFound => ({
  x1, y1: 100, x2: x1 + 80, y2: 300, score: 0.9, sku_id: sku, sku_score: 0.8, rack_index: 0, shelf_index: 0, position: 0, ...extra,
});
const joined = (image: string, dx: number) => ({ image, joined: true, transform: [1, 0, dx, 0, 1, 0, 0, 0, 1], joined_to: null, overlap: null, reason: null, message: null });

// Photo b starts 300 px to the right of photo a (both 400 wide): their last/first 100 px overlap.
function scene(a: ProductFound[], b: ProductFound[], c?: ProductFound[]): SceneAnalysis {
  const images = [
    { image: 'a', width: 400, height: 400, products: a, shelves: [] },
    { image: 'b', width: 400, height: 400, products: b, shelves: [] },
    ...(c ? [{ image: 'c', width: 400, height: 400, products: c, shelves: [] }] : []),
  ];
  const photos = [joined('a', 0), joined('b', 300), ...(c ? [{ image: 'c', joined: false, transform: null, joined_to: null, overlap: null, reason: 'no_overlap' as const, message: 'Photo 3 could not be joined to photo 2: take it again with more overlap.' }] : [])];
  return { images, ms: { decode: 0, detect: 0, identify: 0 }, bay: { width: 700, height: 400, ms: 0, photos } };
}

describe('facings of a bay', () => {
  it('counts a product seen in two photos once, and one cut by a photo edge once', () => {
    // a: products at 0, 100, 310 (bay 310..390, seen whole in b at 10); b: 10 (= a's 310), 200;
    // a's box cut by its right edge at 380..400 (IoU 0.25 with the whole one) is b's product at 70..150 (bay 370..450).
    const a = [product(0, 'x'), product(100, 'x'), product(310, 'y'), product(380, 'z', { x2: 400 })];
    const b = [product(10, 'y'), product(70, 'z'), product(200, 'x')];
    const facings = sceneFacings(scene(a, b));
    expect(facings).toHaveLength(5);
    expect(facings.every((f) => f.rack_index === 0 && f.in_bay)).toBe(true);
    const z = facings.find((f) => f.sku_id === 'z')!;
    // The whole view stands for it, not the cut one.
    expect(z.image).toBe('b');
    expect(z.views.map((v) => [v.image, v.cut])).toEqual([['b', false], ['a', true]]);
    // Positions left to right across the bay.
    expect(facings.sort((p, q) => p.position - q.position).map((f) => f.sku_id)).toEqual(['x', 'x', 'y', 'z', 'x']);
  });

  it('decides a disagreement by the scores, keeps the alternative, and lets a reviewer decide', () => {
    // Both whole views (a's at bay 310..390, b's the same).
    const a = [product(310, 'cola', { sku_score: 0.9 })];
    const b = [product(10, 'fanta', { sku_score: 0.6 })];
    const [f] = sceneFacings(scene(a, b));
    expect(f.sku_id).toBe('cola');
    expect(f.alternatives).toEqual([{ sku_id: 'fanta', score: 0.6 }]);
    const [r] = sceneFacings(scene(a, [product(10, 'fanta', { sku_score: 0.6, reviewed: true })]));
    expect(r.sku_id).toBe('fanta');
    // An unknown view does not outvote an identified one.
    const [u] = sceneFacings(scene([product(320, null, { sku_score: 0 })], [product(20, 'fanta', { sku_score: 0.3 })]));
    expect(u.sku_id).toBe('fanta');
  });

  it('takes two photos\' boxes of one SKU that overlap loosely for one product, not two of different SKUs', () => {
    // a's box at bay 310..390, b's at bay 360..440 (IoU 0.23), neither cut by its photo's edge.
    const same = sceneFacings(scene([product(310, 'y')], [product(60, 'y')]));
    expect(same).toHaveLength(1);
    expect(same[0].views.map((v) => v.image).sort()).toEqual(['a', 'b']);
    expect(same[0].views.every((v) => !v.cut)).toBe(true);
    const other = sceneFacings(scene([product(310, 'y')], [product(60, 'q')]));
    expect(other).toHaveLength(2);
  });

  it('lets a view cut by its photo\'s edge count little against a whole view of the facing', () => {
    // a sees the pack whole (cola, 0.5); b sees it cut by its left edge and takes it for fanta (0.9).
    const [f] = sceneFacings(scene([product(310, 'cola', { sku_score: 0.5 })], [product(0, 'fanta', { x2: 90, sku_score: 0.9 })]));
    expect(f.views.map((v) => [v.image, v.cut])).toEqual([['a', false], ['b', true]]);
    expect(f.sku_id).toBe('cola');
    expect(f.alternatives).toEqual([{ sku_id: 'fanta', score: 0.225 }]);
    // Cut in every photo: the scores decide as they are.
    const [g] = sceneFacings(scene([product(330, 'cola', { x2: 400, sku_score: 0.5 })], [product(0, 'fanta', { x2: 100, sku_score: 0.9 })]));
    expect(g.sku_id).toBe('fanta');
  });

  it('identifies a facing that every photo left unknown when its views agree on a clear best candidate', () => {
    // Composed bench shelf (bay of 2): a Minute Maid seen in both photos, below the identifier's
    // sureness in each (sku_score 0.29 and 0.25) but with the same clear best candidate in both.
    const sug = (top: string, a: number, next: string, b: number) => [{ sku_id: top, score: a }, { sku_id: next, score: b }];
    const unknown = (x1: number, s: number, suggestions: ProductFound['suggestions'], extra: Partial<ProductFound> = {}) => product(x1, null, { sku_score: s, suggestions, ...extra });
    const [f] = sceneFacings(scene([unknown(310, 0.29, sug('minute_maid', 0.72, 'multibrand', 0.39))], [unknown(10, 0.25, sug('minute_maid', 0.62, 'cocacola_can', 0.49))]));
    expect(f.views).toHaveLength(2);
    expect(f.sku_id).toBe('minute_maid');
    expect(f.sku_score).toBeCloseTo(0.29);
    // A view cut by the frame agrees too, even below the floor, when the whole view is clear.
    const [c] = sceneFacings(scene([unknown(310, 0.38, sug('minute_maid', 0.95, 'x', 0.35))], [unknown(0, 0.59, sug('minute_maid', 0.55, 'y', 0.42), { x2: 90 })]));
    expect(c.sku_id).toBe('minute_maid');
    // Views whose best candidates differ, a best candidate under the floor or not clear of the next,
    // and a facing one photo alone saw: left unknown, as the identifier left them.
    expect(sceneFacings(scene([unknown(310, 0.3, sug('minute_maid', 0.8, 'x', 0.3))], [unknown(10, 0.3, sug('fanta_pet', 0.8, 'x', 0.3))]))[0].sku_id).toBeNull();
    expect(sceneFacings(scene([unknown(310, 0.3, sug('minute_maid', 0.55, 'x', 0.3))], [unknown(10, 0.3, sug('minute_maid', 0.58, 'x', 0.3))]))[0].sku_id).toBeNull();
    // Views of a product the catalog lacks agree too, on its nearest look-alike, though less clearly
    // (SKU-110K shelves: 0.60 to 0.64): the floor for an agreed candidate is 0.7.
    expect(sceneFacings(scene([unknown(310, 0.25, sug('fanta_pet', 0.634, 'x', 0.295))], [unknown(10, 0.23, sug('fanta_pet', 0.581, 'y', 0.304))]))[0].sku_id).toBeNull();
    expect(sceneFacings(scene([unknown(310, 0.3, sug('minute_maid', 0.7, 'x', 0.68))], [unknown(10, 0.3, sug('minute_maid', 0.7, 'y', 0.67))]))[0].sku_id).toBeNull();
    expect(sceneFacings(scene([unknown(310, 0.3, sug('minute_maid', 0.9, 'x', 0.3))], [unknown(10, 0.3, undefined)]))[0].sku_id).toBeNull();
    expect(sceneFacings(scene([unknown(100, 0.3, sug('minute_maid', 0.9, 'x', 0.3))], [])).map((x) => x.sku_id)).toEqual([null]);
  });

  it('takes a box within 2 % of its photo\'s edge as cut by it: the detector stops a few pixels short of the frame', () => {
    // b's box 7 px from its left edge (1.75 %), bay 307..327, lies 0.7 inside a's whole box 313..373 (IoU 0.21).
    const [f, ...rest] = sceneFacings(scene([product(313, 'y', { x2: 373 })], [product(7, 'q', { x2: 27 })]));
    expect(rest).toHaveLength(0);
    expect(f.views.map((v) => [v.image, v.cut])).toEqual([['a', false], ['b', true]]);
    // 9 px from it (2.25 %): a box of its own, not cut.
    const apart = sceneFacings(scene([product(313, 'y', { x2: 373 })], [product(9, 'q', { x2: 29 })]));
    expect(apart.map((x) => x.views.map((v) => [v.image, v.cut])).sort()).toEqual([[['a', false]], [['b', false]]]);
  });

  it('does not count a box cut by its photo\'s edge where another photo sees the place whole and found nothing', () => {
    // b's box cut by its left edge at 0..40 is bay 300..340, well inside a (0..400), where a has no box:
    // the part of a pack at b's edge (or a sliver of shelf) that a's whole view shows is no product.
    const lone = mergeScene(scene([product(100, 'x')], [product(0, 'y', { x2: 40 }), product(200, 'x')]));
    expect(lone.facings.map((f) => [f.image, f.x1])).toEqual([['a', 100], ['b', 500]]);
    expect(lone.passed.map((v) => [v.image, v.index, v.cut])).toEqual([['b', 0, true]]);
    // Counted: a box not cut by its edge; a cut one another photo sees only at its own edge (b's
    // right edge cuts a box at bay 680..700, which a does not show); one a reviewer drew or named.
    expect(sceneFacings(scene([product(100, 'x')], [product(10, 'y')]))).toHaveLength(2);
    expect(sceneFacings(scene([], [product(380, 'y', { x2: 400 })]))).toHaveLength(1);
    expect(sceneFacings(scene([product(100, 'x')], [product(0, 'y', { x2: 40, reviewed: true })]))).toHaveLength(2);
    // A cut box on the far side of a's frame (bay 390..430: a sees 390..400 at its edge) counts.
    expect(sceneFacings(scene([], [product(90, 'y', { x1: 0, x2: 130 })]))).toHaveLength(1);
    // REALOGRAM says so: the box is no facing's view and not counted; the others are counted.
    const [, b] = buildRealogram(scene([product(100, 'x')], [product(0, 'y', { x2: 40 }), product(200, 'x')]), new Map());
    expect(b.annotations.map((a) => [a.facing, a.counted])).toEqual([[undefined, false], [1, true]]);
  });

  it('never merges two boxes of one photo, and counts a photo not joined as its own rack', () => {
    const a = [product(0, 'x'), product(30, 'x')]; // overlapping boxes of one photo: two facings
    const facings = sceneFacings(scene(a, [], [product(0, 'q'), product(100, 'q')]));
    expect(facings.filter((f) => f.in_bay)).toHaveLength(2);
    const loose = facings.filter((f) => !f.in_bay);
    expect(loose.map((f) => [f.image, f.rack_index])).toEqual([['c', 1], ['c', 1]]);
  });

  it('counts a scene without a bay as before: every product of every photo, racks as analysed', () => {
    const s = scene([product(320, 'y')], [product(20, 'y', { rack_index: 1 })]);
    const facings = sceneFacings({ ...s, bay: undefined });
    expect(facings.map((f) => [f.image, f.rack_index])).toEqual([['a', 0], ['b', 1]]);
  });
});

describe("the review screen's bay", () => {
  it('merges the boxes as saved the way the reports do: a facing its photos left unknown but agree on takes that SKU', () => {
    const suggestions = [{ sku_id: 'minute_maid', score: 0.9 }, { sku_id: 'x', score: 0.3 }];
    const a = [product(310, null, { sku_score: 0.3, suggestions })];
    const b = [product(10, null, { sku_score: 0.3, suggestions })];
    const analysis = scene(a, b);
    const stored = (p: ProductFound, id: string): StoredBox => ({
      id, x: (p.x1 + p.x2) / 2, y: (p.y1 + p.y2) / 2, w: p.x2 - p.x1, h: p.y2 - p.y1, sku_id: p.sku_id, score: p.score, sku_score: p.sku_score,
      source: 'model', unknown_on_purpose: false, ...(p.suggestions ? { suggestions: p.suggestions } : {}),
    });
    const images = analysis.images.map((img) => ({ image: img.image, width: img.width, height: img.height, version: 0, reviewer: null, reviewed_date: null, boxes: img.products.map((p, i) => stored(p, `m${i}`)) }));
    expect(sceneFacings(analysis).map((f) => f.sku_id)).toEqual(['minute_maid']);
    expect(reviewBay(analysis, images)!.facings.map((f) => f.sku_id)).toEqual(['minute_maid']);
  });
});
