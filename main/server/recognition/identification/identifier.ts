// Matches a product against the catalog's reference images: a global-descriptor shortlist of SKUs,
// re-ranked by geometrically verified local-feature matches, with an "unknown" decision when neither
// is convincing.
import { globalSimilarity } from './global-descriptor.js';
import type { ProductDescriptor, ProductQuery } from './describe.js';
import type { LocalFeatures } from './local-features.js';
import { verifiedMatches } from './local-features.js';

export interface Reference {
  id: string;
  skuId: string;
  descriptor: ProductDescriptor;
}

export interface Candidate {
  skuId: string;
  /** Combined score used for ranking, 0..~1.5. */
  score: number;
  similarity: number;
  inliers: number;
}

export interface Identification {
  skuId: string | null;
  /** Confidence of the chosen SKU in 0..1. */
  score: number;
  candidates: Candidate[];
}

export interface IdentifierOptions {
  /** SKUs re-ranked with local features. */
  shortlist?: number;
  /** Verified matches that count as a sure match (score saturates there). */
  saturatingInliers?: number;
  /** Below this combined score a product is unknown... */
  unknownBelow?: number;
  /** ...unless its appearance alone is this close to a reference... */
  sureSimilarity?: number;
  /** ...or this many matches agree on one homography with a reference. */
  sureInliers?: number;
}

// Calibrated on sku-crops: shelf crops of catalog SKUs score 1.17..1.58 (similarity >= 0.96); products
// outside the catalog mostly 0.57..0.88 (similarity <= 0.86). Packs sharing a printed logo with a
// catalog SKU (a Coca-Cola can or multipack against the Coca-Cola bottle) can pass as that SKU.
const DEFAULTS: Required<IdentifierOptions> = { shortlist: 8, saturatingInliers: 40, unknownBelow: 0.95, sureSimilarity: 0.9, sureInliers: 16 };
// Fewer verified matches than this are what unrelated images reach by chance.
const CHANCE_INLIERS = 8;

export class Identifier {
  private readonly refs = new Map<string, Reference>();
  private readonly opts: Required<IdentifierOptions>;

  constructor(options: IdentifierOptions = {}) {
    this.opts = { ...DEFAULTS, ...options };
  }

  get size(): number {
    return this.refs.size;
  }

  add(ref: Reference): void {
    this.refs.set(ref.id, ref);
  }

  remove(id: string): void {
    this.refs.delete(id);
  }

  clear(): void {
    this.refs.clear();
  }

  /** Global similarity of the best reference of each SKU, best first. */
  rankGlobal(query: { global: Float32Array }): { skuId: string; similarity: number; refs: Reference[] }[] {
    const bySku = new Map<string, { skuId: string; similarity: number; refs: Reference[] }>();
    for (const ref of this.refs.values()) {
      const s = globalSimilarity(query.global, ref.descriptor.global);
      const e = bySku.get(ref.skuId);
      if (!e) bySku.set(ref.skuId, { skuId: ref.skuId, similarity: s, refs: [ref] });
      else {
        e.refs.push(ref);
        if (s > e.similarity) e.similarity = s;
      }
    }
    return [...bySku.values()].sort((a, b) => b.similarity - a.similarity);
  }

  async identify(query: ProductDescriptor | ProductQuery): Promise<Identification> {
    const ranked = this.rankGlobal(query);
    if (ranked.length === 0) return { skuId: null, score: 0, candidates: [] };
    const local = (): Promise<LocalFeatures> => (typeof query.local === 'function' ? query.local() : Promise.resolve(query.local));
    const saturating = this.opts.saturatingInliers;
    const candidates: Candidate[] = [];
    let settled = false;
    for (const [i, c] of ranked.entries()) {
      let inliers = 0;
      // Verified in global order; once a candidate saturates, no later one (lower similarity, at
      // most the same bonus) can overtake it, so the rest keep their global score.
      if (i < this.opts.shortlist && !settled) {
        const q = await local();
        for (const ref of c.refs) {
          inliers = Math.max(inliers, await verifiedMatches(q, ref.descriptor.local));
          if (inliers >= saturating) break;
        }
        settled = inliers >= saturating;
      }
      candidates.push({ skuId: c.skuId, similarity: c.similarity, inliers, score: combine(c.similarity, inliers, saturating) });
    }
    candidates.sort((a, b) => b.score - a.score);
    const best = candidates[0];
    const score = Math.min(1, best.score / 1.5);
    const known = best.score >= this.opts.unknownBelow || best.similarity >= this.opts.sureSimilarity || best.inliers >= this.opts.sureInliers;
    return { skuId: known ? best.skuId : null, score, candidates };
  }
}

function combine(similarity: number, inliers: number, saturating: number): number {
  const verified = Math.max(0, Math.min(inliers, saturating) - CHANCE_INLIERS) / (saturating - CHANCE_INLIERS);
  return similarity + 0.6 * verified;
}
