// Top-row boxes that stop above their pack's lower band. Where the photo's top edge cuts a pack, the
// detector cannot see where the pack begins and often boxes its print only down to where it changes
// (the top-row Cheerios Miele of a dense shelf, their "con più gusto di miele" band left out): such a
// crop is compared with the lower parts of the packshots (cut-by-frame.ts) but shows their middle, and
// is left unknown. A box cut by the top edge, left unknown with free space below it, is looked at again
// extended downwards, and takes what that look identifies when local features confirm it
// (CONFIRMING_INLIERS verified matches), the identifier's own tests passed.
import type { Box } from '../shelves.js';
import { visiblePart } from './cut-by-frame.js';
import { describeQuery } from './describe.js';
import { cropIdentity, type CropIdentity } from './identify-crops.js';
import type { Identifier } from './identifier.js';
import type { RawPixels } from '../raw-pixels.js';

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
