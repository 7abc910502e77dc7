// Identifies a sequence of product crops (pixels already cut out of the photo), in-process or with
// helper threads beside it. Neighbouring crops are usually repeated facings of one product: a crop
// this close in appearance (and size) to one already identified takes its answer without another
// local-feature verification.
//
// Which crops are such repeats depends on appearance alone, so it is settled as crops are described,
// before any is identified; the others are independent of each other and of their order, and helper
// threads take them as they come while this thread describes the rest, then this thread too. Every
// answer is the one a single thread gives.
import { appearanceSimilarity, type Appearance } from './appearance.js';
import { describeQueryRuns, type PackView, type ProductQuery } from './describe.js';
import type { Identification, Identifier } from './identifier.js';
import type { RawPixels } from '../raw-pixels.js';

// Two crops of one product are about 0.93 alike, two different SKUs at most about 0.74 (identifier.ts).
const REPEAT_SIMILARITY = 0.93;
const REPEAT_SIZE_RATIO = 0.85;
// Crops described at a time (the embeddings are computed a batch at a time).
const RUN = 32;

/** How many of the identifier's best candidates a crop keeps, for a reviewer's product picker. */
export const SUGGESTIONS = 5;

export interface CropIdentity {
  skuId: string | null;
  score: number;
  /** The best candidate SKUs, best first (also when the crop is called unknown). */
  suggestions: { skuId: string; score: number }[];
  /**
   * The other candidates nearly as alike by appearance as the chosen SKU (at most LOOK_ALIKE_GAP less
   * similar; gap: how much less): where the pack's printed text may decide (recognition/text/pack-text.ts).
   */
  lookAlikes?: { skuId: string; gap: number }[];
  /** The pack's text, when it was read and changed the answer. */
  readText?: string;
}

/** Other threads identifying crops, each with a copy of the catalog (pool.ts). */
export interface IdentifyHelpers {
  /** How many crops they identify at once. */
  readonly size: number;
  identify(crop: RawPixels, appearance: Appearance & { colour: Float32Array; view?: PackView }, identifier: Identifier): Promise<CropIdentity>;
}

// Siblings of one brand are 0.1..0.2 apart by appearance at most (identifier.ts); 0.1 behind the chosen SKU
// is where its lead is a matter of chance (identify-shelves bench, choice half).
const LOOK_ALIKE_GAP = 0.1;

export function cropIdentity(r: Identification): CropIdentity {
  const suggestions = r.candidates.slice(0, SUGGESTIONS).map((c) => ({ skuId: c.skuId, score: Math.round(c.score * 1000) / 1000 }));
  const chosen = r.candidates.find((c) => c.skuId === r.skuId);
  const lookAlikes = chosen
    ? r.candidates
        .slice(0, SUGGESTIONS)
        .filter((c) => c !== chosen && c.similarity >= chosen.similarity - LOOK_ALIKE_GAP)
        .map((c) => ({ skuId: c.skuId, gap: Math.round((chosen.similarity - c.similarity) * 1000) / 1000 }))
    : [];
  return { skuId: r.skuId, score: r.score, suggestions, ...(lookAlikes.length ? { lookAlikes } : {}) };
}

export async function identifyCrops(
  crops: readonly RawPixels[],
  identifier: Identifier,
  checkpoint?: () => Promise<void>,
  helpers?: IdentifyHelpers,
  /** What part of its pack each crop shows, where it is cut by the photo's frame (identifier.ts). */
  views?: readonly (PackView | undefined)[],
): Promise<CropIdentity[]> {
  if (identifier.size === 0) return crops.map(() => ({ skuId: null, score: 0, suggestions: [] }));
  const queries: ProductQuery[] = [];
  // Each crop's twin: the first crop before it, itself no repeat, that it repeats (-1: none). The
  // others, the originals, are identified: by helpers as soon as they are described, by this thread
  // once every crop is.
  const close = (a: number, b: number) => Math.min(a, b) / Math.max(a, b) >= REPEAT_SIZE_RATIO;
  const twin = new Int32Array(crops.length).fill(-1);
  const originals: number[] = [];
  const results = new Array<CropIdentity>(crops.length);
  let next = 0;
  let described = false;
  let waiting: (() => void)[] = [];
  const wake = () => {
    for (const w of waiting) w();
    waiting = [];
  };
  const take = async (): Promise<number> => {
    while (next === originals.length && !described) await new Promise<void>((resolve) => waiting.push(resolve));
    return next < originals.length ? originals[next++] : -1;
  };
  const helper = async () => {
    for (let i = await take(); i >= 0; i = await take()) results[i] = await helpers!.identify(crops[i], queries[i], identifier);
  };
  const helping = Promise.all(Array.from({ length: helpers?.size ?? 0 }, helper));
  helping.catch(() => undefined); // awaited below, once this thread is done: not unhandled meanwhile
  try {
    await checkpoint?.();
    for await (const run of describeQueryRuns(crops.map((input) => ({ input })), RUN)) {
      const from = queries.length;
      queries.push(...run);
      for (let i = from; i < queries.length; i++) {
        if (views?.[i]) queries[i].view = views[i];
        const t = originals.find((s) => close(crops[s].width, crops[i].width) && close(crops[s].height, crops[i].height) && appearanceSimilarity(queries[s], queries[i]) >= REPEAT_SIMILARITY);
        if (t === undefined) originals.push(i);
        else twin[i] = t;
      }
      wake();
      await checkpoint?.();
    }
    described = true;
    wake();
    // This thread claims the next crop as it starts one, and when that crop will be verified, has its
    // local features computed meanwhile (its grey image resized by sharp while this one is matched).
    for (let i = await take(); i >= 0; ) {
      await checkpoint?.();
      const after = next < originals.length ? originals[next++] : -1;
      if (after >= 0 && identifier.needsLocalFeatures(queries[after])) queries[after].local().catch(() => undefined);
      results[i] = cropIdentity(await identifier.identify(queries[i]));
      i = after >= 0 ? after : await take();
    }
    await helping;
  } finally {
    // A stopped job hands out no more crops (helpers finish the one they hold).
    next = originals.length;
    described = true;
    wake();
  }
  return crops.map((_, i) => results[twin[i] >= 0 ? twin[i] : i]);
}
