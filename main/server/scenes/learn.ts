// Learning from the shelf (docs/recognition.md, "Learning from reviews"): a box a supervisor gives an
// SKU the identifier did not (relabelled, or drawn) becomes a reference image of that SKU at once,
// cut from the scene's photo. The shelf's own light, angle and neighbours are exactly what catalog
// packshots lack, so the next photo of that shelf meets a reference taken under its conditions.
// Such references are marked 'review', listed on the SKU's screen and removable like the others.
// They are master data: written where master data is (the central, or an instance that does not
// sync) when the review is saved there, and by the central when a laptop's saved correction arrives
// by push; laptops receive them, and the photo they are cut from, by pull (docs/sync.md).
import { createHash } from 'node:crypto';
import type { SceneAnalysis } from '../recognition/analysis.js';
import { now } from '../storage/ids.js';
import type { WriteContext } from '../storage/transaction.js';
import { existingSkus, findScene, insertReviewReference, uploadExists } from './queries.js';
import type { StoredBox } from './review.js';

// A photo holds many facings of one SKU that look alike: two of the largest (the most detail) carry
// what the others would, and a shelf of thirty does not add thirty references per save.
const PER_SKU_PER_PHOTO = 2;
// Boxes smaller than this (displayed pixels, either side) hold too little to describe a pack.
const MIN_SIDE = 24;

export interface LearnableCorrection {
  id: string;
  scene_id: string;
  image_id: string;
  /** The photo's boxes before and after the save (JSON StoredBox[]), as annotation_corrections keeps them. */
  before: string;
  after: string;
}

/** The boxes of a save worth learning: given an SKU other than the one they had, or drawn with one. */
export function learnableBoxes(before: readonly StoredBox[], after: readonly StoredBox[]): StoredBox[] {
  const was = new Map(before.map((b) => [b.id, b]));
  const picked: StoredBox[] = [];
  const perSku = new Map<string, number>();
  const candidates = after
    .filter((b) => b.sku_id !== null && b.source === 'reviewer' && was.get(b.id)?.sku_id !== b.sku_id && Math.min(b.w, b.h) >= MIN_SIDE)
    .sort((a, b) => b.w * b.h - a.w * a.h);
  for (const b of candidates) {
    const n = perSku.get(b.sku_id!) ?? 0;
    if (n >= PER_SKU_PER_PHOTO) continue;
    perSku.set(b.sku_id!, n + 1);
    picked.push(b);
  }
  return picked;
}

/** One correction's reference id per box: the same correction applied twice adds nothing twice. */
function referenceId(correctionId: string, boxId: string): string {
  return 'rev-' + createHash('sha256').update(`${correctionId}\n${boxId}`).digest('hex').slice(0, 40);
}

/** Adds the references a saved correction teaches, in the caller's transaction; answers how many. */
export async function learnFromCorrection(ctx: WriteContext, correction: LearnableCorrection): Promise<number> {
  const trx = ctx.trx;
  const boxes = learnableBoxes(JSON.parse(correction.before) as StoredBox[], JSON.parse(correction.after) as StoredBox[]);
  if (boxes.length === 0) return 0;
  const scene = await findScene(trx, correction.scene_id);
  const image = scene?.analysis ? (JSON.parse(scene.analysis) as SceneAnalysis).images.find((i) => i.image === correction.image_id) : undefined;
  // A pushed correction whose photo or scene has not arrived (or an SKU since deleted) teaches nothing.
  if (!image || !(await uploadExists(trx, correction.image_id))) return 0;
  const skus = await existingSkus(trx, [...new Set(boxes.map((b) => b.sku_id!))]);
  const at = now();
  let added = 0;
  for (const b of boxes) {
    if (!skus.has(b.sku_id!)) continue;
    // Boxes are centre and size and may overrun the photo's edge a little; a crop lies inside it.
    const x = Math.max(0, Math.round(b.x - b.w / 2));
    const y = Math.max(0, Math.round(b.y - b.h / 2));
    const w = Math.min(image.width, Math.round(b.x + b.w / 2)) - x;
    const h = Math.min(image.height, Math.round(b.y + b.h / 2)) - y;
    if (Math.min(w, h) < MIN_SIDE) continue;
    const id = referenceId(correction.id, b.id);
    const row = {
      id,
      sku_id: b.sku_id!,
      upload_id: correction.image_id,
      crop: JSON.stringify({ x, y, w, h }),
      // Described when recognition next loads the catalog (identification/references.ts), on each instance.
      descriptor: null,
      source: 'review' as const,
      correction_id: correction.id,
      created_at: at,
      updated_at: at,
    };
    if (!(await insertReviewReference(trx, row))) continue;
    ctx.changed('sku_image', id);
    added++;
  }
  // The photo is a device's upload: sent again, it now reaches every device with the references cut from it.
  if (added > 0) ctx.changed('upload', correction.image_id);
  return added;
}
