// A reviewer's corrections of price tags laid over the model's analysis (price-review.ts saves them):
// plain data in, plain data out, applied wherever the analysis is read (review.ts, reviewedAnalysis).
import { centsOf } from '../domain/money.js';
import type { PriceTagFound, SceneAnalysis } from '../recognition/analysis.js';
import { iou } from '../recognition/detector/nms.js';
import type { PriceTagReviewRow } from './queries.js';

/** One tag's correction; a field left out keeps the model's value. */
export interface TagCorrection {
  index: number;
  /** The price on the tag ("1.99"); null: the tag cannot be read. */
  price?: string | null;
  /** The currency printed, with `price`; left out: the one read, if any. */
  currency?: string | null;
  /** The SKU the tag prices; null: none. */
  sku_id?: string | null;
  /**
   * The tag's box when the correction was saved (set by the server): the correction follows the tag
   * it was made on when the analysis is made again (force_update) and the tags come in another order.
   */
  box?: { x1: number; y1: number; x2: number; y2: number };
}


/** The tag a correction was made on: the one at its box (IoU at least 0.5), else none; without a box, its index. */
function tagOf(c: TagCorrection, tags: readonly PriceTagFound[]): number | null {
  if (!c.box) return c.index < tags.length ? c.index : null;
  if (c.index < tags.length && iou(tags[c.index], c.box) >= 0.5) return c.index;
  let best: number | null = null;
  let bestIou = 0.5;
  tags.forEach((t, i) => {
    const v = iou(t, c.box!);
    if (v >= bestIou) [best, bestIou] = [i, v];
  });
  return best;
}

function corrected(tag: PriceTagFound, c: TagCorrection): PriceTagFound {
  const out: PriceTagFound = { ...tag, reviewed: true };
  if (c.price !== undefined) {
    const { promotion, unitPrice } = tag.reading;
    const read = tag.reading.status === 'read' ? tag.reading.price.currency : null;
    out.reading =
      c.price === null
        ? { status: 'unreadable', reason: 'marked unreadable by a reviewer', promotion, unitPrice }
        : { status: 'read', price: { hundredths: centsOf(c.price)!, currency: c.currency !== undefined ? c.currency : read }, promotion, unitPrice };
    out.read_score = 1;
  }
  if (c.sku_id !== undefined) {
    // Linked by the reviewer to an SKU, not to one box: the facing the model chose no longer decides it.
    out.sku_id = c.sku_id;
    out.product_index = null;
  }
  return out;
}

/** The scene's analysis with each photo's tag corrections laid over the model's tags. */
export function withPriceReview(analysis: SceneAnalysis, rows: readonly Pick<PriceTagReviewRow, 'image_id' | 'corrections'>[]): SceneAnalysis {
  if (rows.length === 0) return analysis;
  const byImage = new Map(rows.map((r) => [r.image_id, JSON.parse(r.corrections) as TagCorrection[]]));
  return {
    ...analysis,
    images: analysis.images.map((img) => {
      const cs = byImage.get(img.image);
      if (!cs || !img.price_tags) return img;
      const tags = img.price_tags;
      const byIndex = new Map<number, TagCorrection>();
      for (const c of cs) {
        const i = tagOf(c, tags);
        if (i !== null) byIndex.set(i, c);
      }
      return { ...img, price_tags: tags.map((t, i) => (byIndex.has(i) ? corrected(t, byIndex.get(i)!) : t)) };
    }),
  };
}

