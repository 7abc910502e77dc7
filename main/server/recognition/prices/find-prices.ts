// The price stage of a photo's analysis: find the tags (the project's tag detector), read them
// (OCR and barcode, read-tag.ts) and link each to the facing it prices (link.ts). Bounded: at most
// `maxTags` tags are read per photo (the detector's surest first); the rest are reported, unread.
import type { PriceTagFound, ProductFound } from '../analysis.js';
import type { RawPixels } from '../raw-pixels.js';
import type { Box } from '../shelves.js';
import { linkTags } from './link.js';
import { readTags } from './read-tag.js';

export interface TagBox extends Box {
  score: number;
}

/** What the pipeline needs to find prices on a photo. */
export interface PriceParts {
  /** The tag detector (recognition/prices/tag-detector.ts in the server). */
  detect(raw: RawPixels): Promise<TagBox[]>;
  /** At most this many tags are read per photo (default 40). */
  maxTags?: number;
  /** Look for EAN barcodes on the tags (default true). */
  ean?: boolean;
  /** The catalog's EAN-13s (and EAN-8s) to SKU ids: a tag printing one is that SKU's. */
  skuByEan?: ReadonlyMap<string, string>;
  /** Told when the stage fails on a photo (the photo's products are kept, its tags left out). */
  onError?: (error: unknown) => void;
}

const DEFAULT_MAX_TAGS = 40;

export async function findPrices(raw: RawPixels, products: readonly ProductFound[], parts: PriceParts): Promise<PriceTagFound[]> {
  const found = await parts.detect(raw);
  const max = parts.maxTags ?? DEFAULT_MAX_TAGS;
  const order = found.map((_, i) => i).sort((a, b) => found[b].score - found[a].score);
  const read = new Set(order.slice(0, max));
  const readIndexes = found.map((_, i) => i).filter((i) => read.has(i));
  const reads = await readTags(
    raw,
    readIndexes.map((i) => found[i]),
    { ean: parts.ean },
  );
  const readOf = new Map(readIndexes.map((i, k) => [i, reads[k]]));
  const links = linkTags(
    found.map((t, i) => ({ ...t, ean: readOf.get(i)?.ean ?? null })),
    products,
    parts.skuByEan,
  );
  // Top to bottom, then left to right: the order a reviewer reads a bay in.
  return found
    .map((t, i): PriceTagFound => {
      const r = readOf.get(i);
      return {
        x1: Math.round(t.x1),
        y1: Math.round(t.y1),
        x2: Math.round(t.x2),
        y2: Math.round(t.y2),
        score: Math.round(t.score * 1000) / 1000,
        text: r?.text ?? '',
        reading: r?.reading ?? { status: 'unreadable', reason: `not read: more than ${max} tags on the photo`, promotion: null, unitPrice: null },
        read_score: r?.read_score ?? 0,
        ean: r?.ean ?? null,
        product_index: links[i].product_index,
        sku_id: links[i].sku_id,
        shelf_index: links[i].shelf_index,
      };
    })
    .sort((a, b) => (a.shelf_index ?? Infinity) - (b.shelf_index ?? Infinity) || (a.shelf_index === null ? a.y1 - b.y1 : 0) || a.x1 - b.x1);
}
