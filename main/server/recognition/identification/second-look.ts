// A second look at a box left unknown whose best candidate was clear: the crop taken again with a margin
// around the detector's box. The photos of a bay are each closer to the shelf than one photo of the whole
// bay would be, and the detector draws its boxes tighter on them (the composed bench shelf: a Minute Maid
// 64x82 px on a photo of the bay where the whole shelf photo at the same pixel scale gave 72x91): the crop
// loses the pack's edges, the local features that verify it fall short of the identifier's sureness, and
// the facing stays unknown while its best candidate is right with a wide lead (0.78 against 0.33). The
// wider crop is identified as any other, and taken only when the identifier is sure of it and it is the
// first look's best candidate: two looks agreeing, never a SKU the first look did not put first.
import type { Box } from '../shelves.js';
import { CUT_MARGIN, visiblePart } from './cut-by-frame.js';
import { identifyCrops, type CropIdentity, type IdentifyHelpers } from './identify-crops.js';
import type { Identifier } from './identifier.js';
import { cropRaw, type RawPixels } from '../raw-pixels.js';

/** The margin around the box, a share of its width and height on each side. */
export const SECOND_LOOK_MARGIN = 0.1;
/** The first look's best candidate must reach this (the identifier's open-set floor for similarity)... */
export const SECOND_LOOK_FLOOR = 0.6;

/** The identities with each unknown box whose best candidate was clear looked at again, wider. */
export async function secondLook(
  raw: RawPixels,
  boxes: readonly Box[],
  ids: readonly CropIdentity[],
  identifier: Identifier,
  checkpoint?: () => Promise<void>,
  helpers?: IdentifyHelpers,
): Promise<CropIdentity[]> {
  const again = ids.flatMap((id, i) => {
    const [best, next] = id.suggestions;
    // ...and lead the next by the identifier's open-set margin.
    return id.skuId === null && best && best.score >= SECOND_LOOK_FLOOR && (!next || best.score - next.score >= CUT_MARGIN) ? [i] : [];
  });
  if (again.length === 0) return [...ids];
  const wider = again.map((i) => {
    const b = boxes[i];
    const mx = (b.x2 - b.x1) * SECOND_LOOK_MARGIN;
    const my = (b.y2 - b.y1) * SECOND_LOOK_MARGIN;
    return { x1: Math.max(0, b.x1 - mx), y1: Math.max(0, b.y1 - my), x2: Math.min(raw.width, b.x2 + mx), y2: Math.min(raw.height, b.y2 + my) };
  });
  const looks = await identifyCrops(
    wider.map((b) => cropRaw(raw, { x: b.x1, y: b.y1, w: b.x2 - b.x1, h: b.y2 - b.y1 })),
    identifier,
    checkpoint,
    helpers,
    wider.map((b) => visiblePart(b, raw.height)),
  );
  const out = [...ids];
  for (const [k, i] of again.entries()) {
    if (looks[k].skuId !== null && looks[k].skuId === ids[i].suggestions[0].skuId) out[i] = looks[k];
  }
  return out;
}
