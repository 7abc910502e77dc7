// How alike two product images look, before any local-feature verification: mostly the learned
// embedding, which is robust to viewpoint, light and background, with a share of the classic colour
// and gradient descriptor, which keeps exact colours that the embedding may blur together.
import { embeddingSimilarity } from './embedding.js';
import { globalSimilarity } from './global-descriptor.js';

export interface Appearance {
  embedding: Float32Array;
  global: Float32Array;
}

/** Weight of the embedding (tuned on the Grocery Store val split and sku-crops; the rest: the classic descriptor). */
export const EMBEDDING_WEIGHT = 0.7;

/** In [-1, 1]; 1 for the same image. */
export function appearanceSimilarity(a: Appearance, b: Appearance): number {
  return EMBEDDING_WEIGHT * embeddingSimilarity(a.embedding, b.embedding) + (1 - EMBEDDING_WEIGHT) * globalSimilarity(a.global, b.global);
}
