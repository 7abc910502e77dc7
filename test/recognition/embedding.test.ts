// The learned product embedding (models/product-embedder.onnx) through the app's own code: its output
// is what identification ranks by, so a broken pre-processing (channel order, layout, resampling) or a
// wrong model must fail here. sku-crops were never trained on.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appearanceSimilarity } from '../../main/server/recognition/identification/appearance.js';
import { describeProduct, describeQuery } from '../../main/server/recognition/identification/describe.js';
import { EMBED_DIM, embed, embeddingInput, embeddingSimilarity } from '../../main/server/recognition/identification/embedding.js';
import { cropFiles, DATA } from './fixtures.js';

const SKUS = ['cocacola_pet', 'cream_soda_pet', 'fanta_pet', 'sprite_pet', 'minute_maid', 'cocacola_can', 'cocacola_zero_can', 'multibrand'];

describe('product embedding', () => {
  it('gives one unit vector per image, the same alone as in a batch', async () => {
    const files = cropFiles('fanta_pet').slice(0, 5);
    const inputs = await Promise.all(files.map((f) => embeddingInput(f)));
    const batch = await embed(inputs);
    expect(batch).toHaveLength(5);
    for (const [i, v] of batch.entries()) {
      expect(v).toHaveLength(EMBED_DIM);
      expect(embeddingSimilarity(v, v)).toBeCloseTo(1, 4);
      const [alone] = await embed([inputs[i]]);
      for (let k = 0; k < EMBED_DIM; k++) expect(alone[k]).toBeCloseTo(v[k], 4);
    }
    expect(await embed([])).toEqual([]);
  });

  it('agrees with PyTorch on the model it was trained as (channel order, layout, scale)', async () => {
    // Written by models/training/embedder/export.py --golden with the shipped model. The resampling
    // differs (OpenCV there, sharp here), so close (0.96 or more), not equal; a swapped channel order
    // lands below 0.2.
    const golden = JSON.parse(readFileSync(path.join(import.meta.dirname, '../fixtures/embedder/golden.json'), 'utf8')) as { images: { file: string; embedding: number[] }[] };
    expect(golden.images.length).toBeGreaterThan(0);
    for (const g of golden.images) {
      const [e] = await embed([await embeddingInput(path.join(DATA, g.file))]);
      expect(embeddingSimilarity(e, Float32Array.from(g.embedding)), g.file).toBeGreaterThan(0.9);
    }
  });

  it('puts photos of one SKU closer together than photos of different SKUs', async () => {
    // Nearest reference (3 per SKU) for every other crop: the right SKU nearly always.
    const refs: { sku: string; e: Float32Array }[] = [];
    const queries: { sku: string; e: Float32Array }[] = [];
    for (const sku of SKUS) {
      const files = cropFiles(sku);
      const vectors = await embed(await Promise.all(files.map((f) => embeddingInput(f))));
      vectors.forEach((e, i) => (i < 3 ? refs : queries).push({ sku, e }));
    }
    let right = 0;
    let same = 0;
    let other = 0;
    for (const q of queries) {
      const scored = refs.map((r) => ({ sku: r.sku, s: embeddingSimilarity(q.e, r.e) })).sort((a, b) => b.s - a.s);
      if (scored[0].sku === q.sku) right++;
      same += Math.max(...scored.filter((r) => r.sku === q.sku).map((r) => r.s));
      other += Math.max(...scored.filter((r) => r.sku !== q.sku).map((r) => r.s));
    }
    expect(right / queries.length).toBeGreaterThanOrEqual(0.9);
    expect(same / queries.length - other / queries.length).toBeGreaterThan(0.2);
  });

  it('is part of both the reference and the query descriptors, and they agree', async () => {
    const file = cropFiles('sprite_pet')[0];
    const ref = await describeProduct(file);
    const query = await describeQuery(file);
    expect(ref.embedding).toHaveLength(EMBED_DIM);
    expect(appearanceSimilarity(ref, query)).toBeGreaterThan(0.99);
  });
});
