// Identifies a sequence of product crops (pixels already cut out of the photo), the core shared by
// the in-process path and the worker threads. Neighbouring crops are usually repeated facings of one
// product: a crop this close in appearance (and size) to one already identified takes its answer
// without another local-feature verification.
import { appearanceSimilarity, type Appearance } from './appearance.js';
import { describeQueries, type ProductQuery } from './describe.js';
import type { Identifier } from './identifier.js';
import type { RawPixels } from './image-input.js';

// Two crops of one product are about 0.93 alike, two different SKUs at most about 0.74 (identifier.ts).
const REPEAT_SIMILARITY = 0.93;
const REPEAT_SIZE_RATIO = 0.85;

/** How many of the identifier's best candidates a crop keeps, for a reviewer's product picker. */
export const SUGGESTIONS = 5;

export interface CropIdentity {
  skuId: string | null;
  score: number;
  /** The best candidate SKUs, best first (also when the crop is called unknown). */
  suggestions: { skuId: string; score: number }[];
}

export async function identifyCrops(
  crops: readonly RawPixels[],
  identifier: Identifier,
  checkpoint?: () => Promise<void>,
): Promise<CropIdentity[]> {
  const out: CropIdentity[] = [];
  if (identifier.size === 0) return crops.map(() => ({ skuId: null, score: 0, suggestions: [] }));
  const seen: { look: Appearance; w: number; h: number; result: CropIdentity }[] = [];
  const close = (a: number, b: number) => Math.min(a, b) / Math.max(a, b) >= REPEAT_SIZE_RATIO;
  // Described in runs (the embeddings are computed a batch at a time), identified one by one.
  const RUN = 32;
  let queries: ProductQuery[] = [];
  for (const [i, crop] of crops.entries()) {
    await checkpoint?.();
    if (i % RUN === 0) queries = await describeQueries(crops.slice(i, i + RUN).map((input) => ({ input })));
    const query = queries[i % RUN];
    const twin = seen.find((s) => close(s.w, crop.width) && close(s.h, crop.height) && appearanceSimilarity(s.look, query) >= REPEAT_SIMILARITY);
    if (twin) {
      out.push(twin.result);
      continue;
    }
    const r = await identifier.identify(query);
    const result = { skuId: r.skuId, score: r.score, suggestions: r.candidates.slice(0, SUGGESTIONS).map((c) => ({ skuId: c.skuId, score: Math.round(c.score * 1000) / 1000 })) };
    seen.push({ look: query, w: crop.width, h: crop.height, result });
    out.push(result);
  }
  return out;
}
