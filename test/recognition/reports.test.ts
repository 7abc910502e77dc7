// The report builders are pure functions of a scene's analysis and the master data: checked here on a
// hand-made analysis of known layout (the API tests check them again on real recognition output).
import { describe, expect, it } from 'vitest';
import type { ProductFound, SceneAnalysis } from '../../main/server/recognition/analysis.js';
import { buildFacingCount } from '../../main/server/scenes/reports/facing-count.js';
import { buildMhlCompliance } from '../../main/server/scenes/reports/mhl-compliance.js';
import { buildPlanogramCompliance, type PlanogramRecordInput } from '../../main/server/scenes/reports/planogram-compliance.js';
import { buildRealogram } from '../../main/server/scenes/reports/realogram.js';
import { buildShareOfSpace } from '../../main/server/scenes/reports/share-of-space.js';

/** Rows of SKU ids (null = unknown), 50 px wide products (the first SKU's 100 px wide), 100 px tall. */
function analysis(rows: (string | null)[][]): SceneAnalysis {
  const products: ProductFound[] = [];
  rows.forEach((row, shelf) => {
    let x = 0;
    row.forEach((sku, position) => {
      const w = sku === 'a' ? 100 : 50;
      products.push({ x1: x, y1: shelf * 120, x2: x + w, y2: shelf * 120 + 100, score: 0.9, sku_id: sku, sku_score: 0.8, rack_index: 0, shelf_index: shelf, position });
      x += w;
    });
  });
  return { images: [{ image: 'img-1', width: 1000, height: 500, products, shelves: [] }], ms: { decode: 0, detect: 0, identify: 0 } };
}

const record = (id: string, sku_id: string, shelf_index: number, product_index: number, facing_x: number, facing_y = 1): PlanogramRecordInput => ({
  id, sku_id, rack_index: 0, shelf_index, product_index, facing_x, facing_y,
});

describe('FACING_COUNT', () => {
  it('counts per SKU, most first, unknown products last', () => {
    expect(buildFacingCount(analysis([['a', 'b', 'b', null], ['b', null, 'c']]))).toEqual([
      { sku_id: 'b', count: 3 },
      { sku_id: 'a', count: 1 },
      { sku_id: 'c', count: 1 },
      { sku_id: null, count: 2 },
    ]);
    expect(buildFacingCount(analysis([]))).toEqual([]);
  });
});

describe('PLANOGRAM_COMPLIANCE', () => {
  const planned = [record('r1', 'a', 0, 0, 2), record('r2', 'b', 0, 1, 3), record('r3', 'c', 1, 2, 2)];

  it('is 1 with no actions when the shelf follows the planogram', () => {
    const r = buildPlanogramCompliance(analysis([['a', 'a', 'b', 'b', 'b'], ['c', 'c']]), 'p', 'd', planned);
    expect(r).toMatchObject({ planogram: 'p', display: 'd', compliance: 1, expected_faces: 7, correct_faces: 7, extra: [], actions: [] });
    expect(r.positions.map((p) => p.status)).toEqual(['ok', 'ok', 'ok']);
  });

  it('reports fewer facings, a wrong SKU, a missing product and extras, with actions', () => {
    // Shelf 0: one 'a' (of 2), then 'x' where 'b' belongs; shelf 1: nothing of 'c', an unknown product.
    const r = buildPlanogramCompliance(analysis([['a', 'x', 'x', 'x'], []]), 'p', 'd', planned);
    const byRecord = Object.fromEntries(r.positions.filter((p) => p.planogram_record).map((p) => [p.planogram_record, p]));
    expect(byRecord.r1).toMatchObject({ status: 'fewer_facings', expected_facings: 2, found_facings: 1 });
    expect(byRecord.r2).toMatchObject({ status: 'wrong_sku', expected_facings: 3, found_facings: 0, found_sku_ids: ['x'] });
    expect(byRecord.r3).toMatchObject({ status: 'missing', found_facings: 0, found_sku_ids: [] });
    expect(r.positions.find((p) => p.status === 'extra')).toMatchObject({ sku_id: 'x', found_facings: 3, shelf_index: 0, planogram_record: null });
    expect(r.extra).toEqual([{ sku_id: 'x', count: 3 }]);
    expect(r.expected_faces).toBe(7);
    expect(r.correct_faces).toBe(1);
    expect(r.compliance).toBeCloseTo(1 / 7, 4);
    expect(r.actions.map((a) => [a.type, a.sku_id, a.count])).toEqual([
      ['add_facings', 'a', 1],
      ['replace', 'b', 3],
      ['remove', 'x', 3],
      ['add', 'c', 2],
    ]);
  });

  it('counts vertical facings (a pile) and finds a product on the wrong shelf extra there', () => {
    const r = buildPlanogramCompliance(analysis([['a', 'a', 'a', 'a'], ['b']]), null, null, [record('r1', 'a', 0, 0, 2, 2)]);
    expect(r.positions[0]).toMatchObject({ status: 'ok', expected_facings: 4, found_facings: 4 });
    expect(r.extra).toEqual([{ sku_id: 'b', count: 1 }]);
    expect(r.compliance).toBe(1);
  });
});

describe('MHL_COMPLIANCE', () => {
  it('accepts any alternative SKU and gives the compliant fraction', () => {
    const r = buildMhlCompliance(analysis([['a', 'b']]), 'm', [
      { id: 'm1', skus: ['a', null, null, null, null, null, null] },
      { id: 'm2', skus: ['z', null, 'b', null, null, null, null] },
      { id: 'm3', skus: ['z', 'y', null, null, null, null, null] },
    ]);
    expect(r).toEqual({
      musthavelist: 'm',
      compliance: 0.6667,
      records: [
        { mhl_record_id: 'm1', compliant: true, found_sku_id: 'a' },
        { mhl_record_id: 'm2', compliant: true, found_sku_id: 'b' },
        { mhl_record_id: 'm3', compliant: false, found_sku_id: null },
      ],
    });
    expect(buildMhlCompliance(analysis([]), 'm', []).compliance).toBe(1);
  });
});

describe('SHARE_OF_SPACE and REALOGRAM', () => {
  it('shares count and width, unknown last', () => {
    // 'a' is 100 px wide, the others 50: widths a 100, b 100, null 50 -> 250.
    expect(buildShareOfSpace(analysis([['a', 'b', 'b', null]]))).toEqual([
      { sku_id: 'a', share_of_count: 0.25, share_of_space: 0.4 },
      { sku_id: 'b', share_of_count: 0.5, share_of_space: 0.4 },
      { sku_id: null, share_of_count: 0.25, share_of_space: 0.2 },
    ]);
  });

  it('gives box centres and sizes with SKU names', () => {
    const [img] = buildRealogram(analysis([['a', null]]), new Map([['a', 'Product A']]));
    expect(img.annotations).toEqual([
      { sku_id: 'a', name: 'Product A', x: 50, y: 50, w: 100, h: 100, score: 0.9, sku_score: 0.8, shelf_index: 0 },
      { sku_id: null, name: null, x: 125, y: 50, w: 50, h: 100, score: 0.9, sku_score: 0.8, shelf_index: 0 },
    ]);
  });
});
