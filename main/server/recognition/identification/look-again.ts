// An unknown box identified again from another crop of its photo, where the first crop is known to
// fall short of the pack in one way. Each way has its own crop and its own test for taking the answer;
// either may name a facing left unknown, neither renames one.
//
// Below: top-row boxes that stop above their pack's lower band. Where the photo's top edge cuts a
// pack, the detector cannot see where the pack begins and often boxes its print only down to where it changes
// (the top-row Cheerios Miele of a dense shelf, their "con più gusto di miele" band left out): such a
// crop is compared with the lower parts of the packshots (cut-by-frame.ts) but shows their middle, and
// is left unknown. A box cut by the top edge, left unknown with free space below it, is looked at again
// extended downwards, and takes what that look identifies when local features confirm it
// (CONFIRMING_INLIERS verified matches), the identifier's own tests passed.
//
// Wider: a box left unknown whose best candidate was clear, on a photo of a bay: the crop taken again
// with a margin around the detector's box. The photos of a bay are each closer to the shelf than one photo of the whole
// bay would be, and the detector draws its boxes tighter on them (the composed bench shelf: a Minute Maid
// 64x82 px on a photo of the bay where the whole shelf photo at the same pixel scale gave 72x91): the crop
// loses the pack's edges, the local features that verify it fall short of the identifier's sureness, and
// the facing stays unknown while its best candidate is right with a wide lead (0.78 against 0.33). The
// wider crop is identified as any other, and taken only when the identifier is sure of it and it is the
// first look's best candidate: two looks agreeing, never a SKU the first look did not put first.
import type { Box } from '../shelves.js';
import { CUT_MARGIN, visiblePart } from './cut-by-frame.js';
import { describeQuery } from './describe.js';
import { cropIdentity, identifyCrops, type CropIdentity, type IdentifyHelpers } from './identify-crops.js';
import type { Identifier } from './identifier.js';
import { cropRaw, type RawPixels } from '../raw-pixels.js';

/** The box is extended down by this fraction of its height (less where another box or the photo's edge comes first)... */
export const EXTEND_BY = 0.7;
/** ...and looked at again only when at least this fraction of its height is free below it. */
export const FREE_BELOW = 0.5;
/** A box below counts when it overlaps this fraction of the box's width. */
const BELOW_OVERLAP = 0.3;
/** The extended box is not looked at when one other box covers this fraction of it (it would be that one). */
const COVERED = 0.5;
/** Verified matches that the extended look needs (the identifier's sureInliers). */
export const CONFIRMING_INLIERS = 16;

// Chosen on the identify-shelves bench's choice half (docs/recognition.md, sixth round): the top-row
// Cheerios of h2, unknown at 0.45-0.48 similar, match their packshot on 54-83 points extended (0.5 of
// their height: 41-46). Free space of 0.25 of the height tried twice as many boxes for the same
// answers; without the covering test a sliver above a Cheerios box of h4 became a third Cheerios. Boxes
// not cut by the top edge, looked at again too, gave nothing more on the choice half for 4x the looks
// (27 against 7 on its 7 photos: time).

/** The part of the photo below a box that its extension may take, or undefined when too little is free. */
export function extensionBelow(box: Box, boxes: readonly Box[], height: number): Box | undefined {
  const h = box.y2 - box.y1;
  const w = box.x2 - box.x1;
  if (h <= 0 || w <= 0) return undefined;
  let y2 = Math.min(height, box.y2 + EXTEND_BY * h);
  for (const o of boxes) {
    // A box below: starting under the box's lower quarter and overlapping it across.
    if (o === box || o.y1 < box.y2 - 0.25 * h) continue;
    if (Math.min(o.x2, box.x2) - Math.max(o.x1, box.x1) > BELOW_OVERLAP * w) y2 = Math.min(y2, o.y1);
  }
  if (y2 - box.y2 < FREE_BELOW * h) return undefined;
  const extended = { x1: box.x1, y1: box.y1, x2: box.x2, y2 };
  const area = w * (y2 - box.y1);
  for (const o of boxes) {
    if (o === box) continue;
    const iw = Math.min(o.x2, extended.x2) - Math.max(o.x1, extended.x1);
    const ih = Math.min(o.y2, extended.y2) - Math.max(o.y1, extended.y1);
    if (iw > 0 && ih > 0 && iw * ih >= COVERED * area) return undefined;
  }
  return extended;
}

/** The identities with each unknown box cut by the top edge that local features confirm extended downwards given that answer. */
export async function lookBelow(raw: RawPixels, boxes: readonly Box[], ids: readonly CropIdentity[], identifier: Identifier): Promise<CropIdentity[]> {
  const out = [...ids];
  for (let i = 0; i < boxes.length; i++) {
    if (ids[i].skuId !== null || visiblePart(boxes[i], raw.height) !== 'lower') continue;
    const e = extensionBelow(boxes[i], boxes, raw.height);
    if (!e) continue;
    const query = await describeQuery(raw, { x: e.x1, y: e.y1, w: e.x2 - e.x1, h: e.y2 - e.y1 });
    const view = visiblePart(e, raw.height);
    if (view) query.view = view;
    const r = await identifier.identify(query);
    const chosen = r.candidates.find((c) => c.skuId === r.skuId);
    if (r.skuId !== null && chosen && chosen.inliers >= CONFIRMING_INLIERS) out[i] = cropIdentity(r);
  }
  return out;
}

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
