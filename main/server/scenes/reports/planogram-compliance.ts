// PLANOGRAM_COMPLIANCE: compares each planned position (rack, shelf, product) with what stands on
// that shelf. A shelf's planned positions take up consecutive facings left to right; a position is
// `ok` when its SKU has at least the planned facings on the shelf, `fewer_facings` when it has some,
// `wrong_sku` when its slots hold other products, `missing` when they are empty. SKUs on a shelf that
// the planogram does not put there are `extra`. Compliance = correctly placed faces / expected faces.
// A bay of several photos is one rack (0), its shelves running through the photos and its positions
// left to right across the bay; photos that could not be joined are racks of their own (1, 2...).
import type { SceneAnalysis } from '../../recognition/analysis.js';
import { sceneFacings, type Facing } from '../../recognition/bay/facings.js';
import { bayBody } from './bay.js';
import type { PlanogramRecordTable } from '../../storage/schema.js';
import type { PlanogramAction, PlanogramCompliance, PlanogramPosition, PositionStatus } from './bodies.js';

/** The fields of a planogram record (storage/schema.ts) the comparison reads. */
export type PlanogramRecordInput = Pick<PlanogramRecordTable, 'id' | 'sku_id' | 'rack_index' | 'shelf_index' | 'product_index' | 'facing_x' | 'facing_y'>;

export type { PlanogramAction, PlanogramCompliance, PlanogramPosition, PositionStatus } from './bodies.js';

const shelfKey = (rack: number, shelf: number) => `${rack}/${shelf}`;

export function buildPlanogramCompliance(
  analysis: SceneAnalysis,
  planogram: string | null,
  display: string | null,
  records: readonly PlanogramRecordInput[],
  skuName: (id: string | null) => string = (id) => id ?? 'unknown product',
): PlanogramCompliance {
  // What stands on each shelf, left to right.
  const found = new Map<string, Facing[]>();
  for (const p of sceneFacings(analysis)) {
    const k = shelfKey(p.rack_index, p.shelf_index);
    const list = found.get(k) ?? [];
    list.push(p);
    found.set(k, list);
  }
  for (const list of found.values()) list.sort((a, b) => a.x1 + a.x2 - (b.x1 + b.x2));

  const planned = new Map<string, PlanogramRecordInput[]>();
  for (const r of records) {
    const k = shelfKey(r.rack_index, r.shelf_index);
    const list = planned.get(k) ?? [];
    list.push(r);
    planned.set(k, list);
  }

  const positions: PlanogramPosition[] = [];
  const actions: PlanogramAction[] = [];
  const extraCounts = new Map<string | null, number>();
  let expectedFaces = 0;
  let correctFaces = 0;

  const keys = [...new Set([...planned.keys(), ...found.keys()])].sort((a, b) => {
    const [ra, sa] = a.split('/').map(Number);
    const [rb, sb] = b.split('/').map(Number);
    return ra - rb || sa - sb;
  });
  for (const k of keys) {
    const [rack, shelf] = k.split('/').map(Number);
    const plan = [...(planned.get(k) ?? [])].sort((a, b) => a.product_index - b.product_index);
    const onShelf = found.get(k) ?? [];
    const skus = onShelf.map((p) => p.sku_id);
    // Facings of each SKU on the shelf, handed out to its planned positions in order.
    const available = new Map<string | null, number>();
    for (const s of skus) available.set(s, (available.get(s) ?? 0) + 1);
    const plannedSkus = new Set(plan.map((r) => r.sku_id));
    let slot = 0;
    for (const r of plan) {
      const expected = Math.max(1, r.facing_x) * Math.max(1, r.facing_y);
      const have = available.get(r.sku_id) ?? 0;
      const foundFacings = Math.min(have, expected);
      available.set(r.sku_id, have - foundFacings);
      const slots = skus.slice(slot, slot + expected);
      slot += expected;
      const others = [...new Set(slots.filter((s) => s !== r.sku_id))];
      let status: PositionStatus;
      if (foundFacings >= expected) status = 'ok';
      else if (foundFacings > 0) status = 'fewer_facings';
      else if (others.length > 0) status = 'wrong_sku';
      else status = 'missing';
      expectedFaces += expected;
      correctFaces += foundFacings;
      positions.push({
        planogram_record: r.id,
        rack_index: rack,
        shelf_index: shelf,
        product_index: r.product_index,
        sku_id: r.sku_id,
        expected_facings: expected,
        found_facings: foundFacings,
        found_sku_ids: foundFacings > 0 ? [r.sku_id, ...others] : others,
        status,
      });
      const at = { rack_index: rack, shelf_index: shelf, product_index: r.product_index };
      if (status === 'missing') {
        actions.push({ type: 'add', sku_id: r.sku_id, ...at, count: expected, message: `Add ${expected} facing(s) of ${skuName(r.sku_id)} on shelf ${shelf + 1}.` });
      } else if (status === 'fewer_facings') {
        const n = expected - foundFacings;
        actions.push({ type: 'add_facings', sku_id: r.sku_id, ...at, count: n, message: `Add ${n} more facing(s) of ${skuName(r.sku_id)} on shelf ${shelf + 1}.` });
      } else if (status === 'wrong_sku') {
        actions.push({
          type: 'replace',
          sku_id: r.sku_id,
          ...at,
          count: expected,
          message: `Replace ${others.map(skuName).join(', ')} with ${skuName(r.sku_id)} on shelf ${shelf + 1}.`,
        });
      }
    }
    // Whatever is left over on the shelf and not planned there at all is extra.
    for (const [sku, left] of available) {
      if (left <= 0 || plannedSkus.has(sku as string)) continue;
      extraCounts.set(sku, (extraCounts.get(sku) ?? 0) + left);
      positions.push({
        planogram_record: null,
        rack_index: rack,
        shelf_index: shelf,
        product_index: null,
        sku_id: sku,
        expected_facings: 0,
        found_facings: left,
        found_sku_ids: [sku],
        status: 'extra',
      });
      if (sku !== null) {
        actions.push({ type: 'remove', sku_id: sku, rack_index: rack, shelf_index: shelf, product_index: null, count: left, message: `Remove ${left} facing(s) of ${skuName(sku)} from shelf ${shelf + 1}.` });
      }
    }
  }
  const bay = bayBody(analysis);
  return {
    planogram,
    display,
    ...(bay ? { bay } : {}),
    compliance: expectedFaces === 0 ? 1 : Math.round((correctFaces / expectedFaces) * 10_000) / 10_000,
    expected_faces: expectedFaces,
    correct_faces: correctFaces,
    positions,
    extra: [...extraCounts.entries()].map(([sku_id, count]) => ({ sku_id, count })),
    actions,
  };
}
