// Facing counts of the scene on screen as corrected, each beside what it was when last saved; a bay's
// facing seen in several photos counts once.
import { FacingTable } from '../FacingTable';
import type { SkuColours } from '../skuColours';
import { sceneCounts, type ReviewStore } from './reviewStore';

export function CorrectedCounts({
  store,
  scene,
  nameOf,
  colourOf,
}: {
  store: ReviewStore;
  scene: string;
  nameOf(sku: string): string;
  colourOf: SkuColours;
}) {
  const current = store((s) => s.current);
  const saved = store((s) => s.saved);
  const facingOf = store((s) => s.facingOf);
  const bays = store((s) => s.bays);
  const counts = sceneCounts({ current, facingOf, bays }, scene);
  const savedDoc = Object.fromEntries(Object.entries(current).map(([k, p]) => [k, { ...p, boxes: saved[k]?.boxes ?? [] }]));
  const before = new Map(sceneCounts({ current, facingOf, bays }, scene, savedDoc).map((c) => [c.sku_id, c.count]));
  return (
    <section aria-labelledby="review-counts-title">
      <h4 id="review-counts-title">Counts as corrected</h4>
      <FacingTable label="Counts as corrected" rows={counts} nameOf={(sku) => (sku ? nameOf(sku) : 'Unknown products')} colourOf={colourOf} before={before} />
    </section>
  );
}
