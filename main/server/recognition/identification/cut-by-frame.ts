// Packs cut by the photo's top or bottom edge. The top shelf of a photo usually shows its packs without
// their upper part (and the bottom shelf without their lower part), while every packshot shows the whole
// pack: such a crop is less alike to its own SKU's references than a whole facing is, and its best
// candidate, though right, rarely reaches the identifier's sureness (identifier.ts: a combined score of
// 0.95, 0.8 similar or 16 verified matches). For those boxes the sureness is waived; the open-set tests
// stay: the best candidate must still reach the floor and lead the next by the margin.
import type { Box } from '../shelves.js';
import type { PackView } from './describe.js';
import type { CropIdentity } from './identify-crops.js';

/** A box this close to the top or bottom edge (fraction of the photo's height) is cut by the frame. */
export const CUT_EDGE = 0.05;
/** The best candidate of a cut box is taken from this score... */
export const CUT_FLOOR = 0.7;
/** ...when it leads the next candidate by this much. */
export const CUT_MARGIN = 0.05;

// Chosen on the identify-shelves bench's choice half (docs/recognition.md), replaying every box's
// candidates: the top-row Miel Pops and Cheerios of the dense shelves, left unknown with the right best
// candidate. The floor was 0.6 until cut boxes were also compared with the part of each packshot they
// show (visiblePart): that lifts the right SKU's score and some wrong ones' too, and 0.7 is where the
// choice half's false identifications stayed as few. The left and right edges are not included: a box there is often a sliver of a pack, or of one
// without a reference (Weetabix, Orzo), and taking them raised false identifications (choice half, 6 -> 8 to 10). The
// edge band is flat from 4 to 8 % of the height; floor and margin are the identifier's open-set ones.

export function cutByFrame(box: Box, height: number): boolean {
  return box.y1 <= CUT_EDGE * height || box.y2 >= (1 - CUT_EDGE) * height;
}

/**
 * The part of its pack a box shows: the lower part when the photo's top edge cuts it, the upper part
 * when the bottom edge does (a box touching both, a close-up, counts as cut at the top); undefined when
 * neither does. Such a crop is compared also with that part of each reference (identifier.ts).
 */
export function visiblePart(box: Box, height: number): PackView | undefined {
  if (box.y1 <= CUT_EDGE * height) return 'lower';
  if (box.y2 >= (1 - CUT_EDGE) * height) return 'upper';
  return undefined;
}

/** The identities with each unknown box cut by the top or bottom edge given its clear best candidate. */
export function takeCutPacks(boxes: readonly Box[], ids: readonly CropIdentity[], height: number): CropIdentity[] {
  return ids.map((id, i) => {
    if (id.skuId !== null || !cutByFrame(boxes[i], height)) return id;
    const [best, next] = id.suggestions;
    if (!best || best.score < CUT_FLOOR || (next && best.score - next.score < CUT_MARGIN)) return id;
    return { ...id, skuId: best.skuId };
  });
}
