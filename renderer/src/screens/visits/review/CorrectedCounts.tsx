// Facing counts of the scene on screen as corrected, each beside what it was when last saved.
import { FacingTable } from '../FacingTable';
import type { SkuColours } from '../skuColours';
import { countBoxes, type ReviewStore } from './reviewStore';

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
  const sceneBoxes = (boxes: (k: string) => readonly { sku_id: string | null }[]) =>
    Object.keys(current)
      .filter((k) => current[k].scene === scene)
      .flatMap((k) => boxes(k));
  const counts = countBoxes(sceneBoxes((k) => current[k].boxes));
  const before = new Map(countBoxes(sceneBoxes((k) => saved[k]?.boxes ?? [])).map((c) => [c.sku_id, c.count]));
  return (
    <section aria-labelledby="review-counts-title">
      <h4 id="review-counts-title">Counts as corrected</h4>
      <FacingTable label="Counts as corrected" rows={counts} nameOf={(sku) => (sku ? nameOf(sku) : 'Unknown products')} colourOf={colourOf} before={before} />
    </section>
  );
}
