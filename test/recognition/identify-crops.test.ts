// identifyCrops with helpers (identification/identify-crops.ts): however the crops are shared between
// the calling thread and its helpers, and in whatever order the helpers answer, every crop gets the
// answer of identifying them all on one thread, repeated facings included; the crops whose local
// features are computed ahead are those identify() uses; a job stopped at a checkpoint hands out no
// more crops. The helpers here run in-process (the worker threads that do it
// in the server: pool.test.ts).
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Appearance } from '../../main/server/recognition/identification/appearance.js';
import { describeProduct, describeQueries, queryLocalFeatures } from '../../main/server/recognition/identification/describe.js';
import { cropIdentity, identifyCrops, type CropIdentity, type IdentifyHelpers } from '../../main/server/recognition/identification/identify-crops.js';
import { Identifier, PIPELINE_IDENTIFIER } from '../../main/server/recognition/identification/identifier.js';
import { cropRaw, type RawPixels } from '../../main/server/recognition/raw-pixels.js';
import { composeShelf, groceryPackshots, referenceFiles, UPRIGHT } from './fixtures.js';

/** Identifies on this thread after a pseudo-random delay, counting what it was given. */
class DelayedHelpers implements IdentifyHelpers {
  given: RawPixels[] = [];
  private seed = 1;
  constructor(readonly size: number) {}

  async identify(crop: RawPixels, appearance: Appearance & { colour: Float32Array }, identifier: Identifier): Promise<CropIdentity> {
    this.given.push(crop);
    this.seed = (Math.imul(this.seed, 48271) + 11) >>> 0;
    await new Promise((resolve) => setTimeout(resolve, this.seed % 40));
    return cropIdentity(await identifier.identify({ ...appearance, local: queryLocalFeatures(crop) }));
  }
}

let identifier: Identifier;
let crops: RawPixels[];
let products: string[];

beforeAll(async () => {
  identifier = new Identifier(PIPELINE_IDENTIFIER);
  for (const p of UPRIGHT) for (const [i, f] of referenceFiles(p).entries()) identifier.add({ id: `${p}-${i}`, skuId: p, descriptor: await describeProduct(f) });
  for (const g of groceryPackshots(6)) identifier.add({ id: g.name, skuId: g.name, descriptor: await describeProduct(g.file) });
  // Repeated facings (3 fanta, 4 minute maid...) and more crops than one embedding batch (32).
  const rows: Array<Array<[string, number]>> = [
    [['fanta_pet', 3], ['sprite_pet', 2], ['cocacola_pet', 2], ['cream_soda_pet', 2]],
    [['cream_soda_pet', 3], ['minute_maid', 4], ['fanta_pet', 2]],
    [['sprite_pet', 3], ['cocacola_pet', 3], ['minute_maid', 3]],
    [['cocacola_pet', 2], ['fanta_pet', 3], ['sprite_pet', 2], ['minute_maid', 2]],
  ];
  const shelf = await composeShelf(rows);
  const { data, info } = await sharp(shelf.jpeg).raw().toBuffer({ resolveWithObject: true });
  const raw = { data, width: info.width, height: info.height, channels: info.channels };
  crops = shelf.products.map((p) => cropRaw(raw, { x: p.x1, y: p.y1, w: p.x2 - p.x1, h: p.y2 - p.y1 }));
  products = shelf.products.map((p) => p.product);
}, 120_000);

describe('identifying crops with helpers', () => {
  it('gives every crop the answer of one thread, however the helpers share the work', async () => {
    expect(crops.length).toBeGreaterThan(32);
    const alone = await identifyCrops(crops, identifier);
    expect(alone.map((r) => r.skuId)).toEqual(products);
    for (const size of [1, 3]) {
      const helpers = new DelayedHelpers(size);
      expect(await identifyCrops(crops, identifier, undefined, helpers)).toEqual(alone);
      // The helpers did take a share, and no repeated facing was identified again.
      expect(helpers.given.length).toBeGreaterThan(0);
      expect(new Set(helpers.given).size).toBe(helpers.given.length);
    }
  }, 120_000);

  it('knows ahead which crops identify() verifies with local features (those computed in advance)', async () => {
    const queries = await describeQueries(crops.map((input) => ({ input })));
    // Products outside the catalog too: the catalog without two of its SKUs.
    const partial = new Identifier(PIPELINE_IDENTIFIER);
    for (const r of identifier.references()) if (r.skuId !== 'fanta_pet' && r.skuId !== 'sprite_pet') partial.add(r);
    const seen = { needed: 0, not: 0 };
    for (const id of [identifier, partial]) {
      for (const q of queries) {
        let used = false;
        await id.identify({ ...q, local: () => ((used = true), q.local()) });
        expect(id.needsLocalFeatures(q)).toBe(used);
        seen[used ? 'needed' : 'not']++;
      }
    }
    expect(seen.needed).toBeGreaterThan(0);
    expect(seen.not).toBeGreaterThan(0);
  }, 120_000);

  it('hands out no more crops once a checkpoint stops the job', async () => {
    const helpers = new DelayedHelpers(2);
    let calls = 0;
    const stop = new Error('job stopped');
    const checkpoint = async () => {
      if (++calls > 3) throw stop;
    };
    await expect(identifyCrops(crops, identifier, checkpoint, helpers)).rejects.toBe(stop);
    const given = helpers.given.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(helpers.given.length).toBe(given);
    expect(given).toBeLessThan(crops.length);
  }, 120_000);
});
