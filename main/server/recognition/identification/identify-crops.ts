// Identifies a sequence of product crops (pixels already cut out of the photo), the core shared by
// the in-process path and the worker threads. Neighbouring crops are usually repeated facings of one
// product: a crop this close in appearance (and size) to one already identified takes its answer
// without another local-feature verification.
import { describeQuery } from './describe.js';
import { globalSimilarity } from './global-descriptor.js';
import type { Identifier } from './identifier.js';
import type { RawPixels } from './image-input.js';

const REPEAT_SIMILARITY = 0.97;
const REPEAT_SIZE_RATIO = 0.85;

export interface CropIdentity {
  skuId: string | null;
  score: number;
}

export async function identifyCrops(
  crops: readonly RawPixels[],
  identifier: Identifier,
  checkpoint?: () => Promise<void>,
): Promise<CropIdentity[]> {
  const out: CropIdentity[] = [];
  const seen: { global: Float32Array; w: number; h: number; result: CropIdentity }[] = [];
  const close = (a: number, b: number) => Math.min(a, b) / Math.max(a, b) >= REPEAT_SIZE_RATIO;
  for (const crop of crops) {
    await checkpoint?.();
    if (identifier.size === 0) {
      out.push({ skuId: null, score: 0 });
      continue;
    }
    const query = await describeQuery(crop);
    const twin = seen.find((s) => close(s.w, crop.width) && close(s.h, crop.height) && globalSimilarity(s.global, query.global) >= REPEAT_SIMILARITY);
    if (twin) {
      out.push(twin.result);
      continue;
    }
    const r = await identifier.identify(query);
    const result = { skuId: r.skuId, score: r.score };
    seen.push({ global: query.global, w: crop.width, h: crop.height, result });
    out.push(result);
  }
  return out;
}
