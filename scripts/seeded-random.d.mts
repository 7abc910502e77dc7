// Types of scripts/seeded-random.mjs.
export function seededRandom(seed: number): () => number;
