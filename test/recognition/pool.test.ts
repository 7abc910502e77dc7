// The identification worker pool (built JavaScript only: worker threads cannot load the TypeScript
// sources) gives the same answers as identifying in-process, on real crops of a composed shelf.
import { existsSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { composeShelf, groceryPackshots, referenceFiles, UPRIGHT } from './fixtures.js';

const DIST = path.resolve('dist/main/server/recognition/identification');
let pool: { size: number; identify: (...args: any[]) => Promise<any>; close(): Promise<void> } | undefined;

afterAll(async () => pool?.close());

describe('identification pool', () => {
  it('identifies crops on worker threads exactly as in-process', async () => {
    if (!existsSync(path.join(DIST, 'pool.js'))) throw new Error('dist/ is missing: run `npm run build` (npm test does) before this test');
    const { IdentifyPool } = await import(path.join(DIST, 'pool.js'));
    const { Identifier, PIPELINE_IDENTIFIER } = await import(path.join(DIST, 'identifier.js'));
    const { describeProduct, describeReference } = await import(path.join(DIST, 'describe.js'));
    const { identifyCrops } = await import(path.join(DIST, 'identify-crops.js'));
    const { cropRaw } = await import(path.join(DIST, '..', 'raw-pixels.js'));
    expect(IdentifyPool.available()).toBe(true);

    const identifier = new Identifier(PIPELINE_IDENTIFIER);
    // With their parts (describeReference), as the server describes references: compared with crops cut by the frame.
    for (const p of UPRIGHT) for (const [i, f] of referenceFiles(p).entries()) identifier.add({ id: `${p}-${i}`, skuId: p, descriptor: await describeReference(f) });
    for (const g of groceryPackshots(10)) identifier.add({ id: g.name, skuId: g.name, descriptor: await describeProduct(g.file) });
    // 36 crops: with 2 workers the second half begins at a repeated facing (fanta, crops 16-20),
    // which a split of the crops into halves identified afresh, with another score.
    const shelf = await composeShelf([
      [['fanta_pet', 3], ['sprite_pet', 2], ['cocacola_pet', 2], ['cream_soda_pet', 2]],
      [['cream_soda_pet', 3], ['minute_maid', 4], ['fanta_pet', 2]],
      [['fanta_pet', 3], ['cocacola_pet', 3], ['minute_maid', 3]],
      [['cocacola_pet', 2], ['sprite_pet', 3], ['fanta_pet', 2], ['minute_maid', 2]],
    ]);
    const { data, info } = await sharp(shelf.jpeg).raw().toBuffer({ resolveWithObject: true });
    const raw = { data, width: info.width, height: info.height, channels: info.channels };
    const crops = shelf.products.map((p) => cropRaw(raw, { x: p.x1, y: p.y1, w: p.x2 - p.x1, h: p.y2 - p.y1 }));

    pool = new IdentifyPool(2);
    const local = await identifyCrops(crops, identifier);
    const threaded = await identifyCrops(crops, identifier, undefined, pool);
    expect(threaded).toEqual(local);
    expect(threaded.map((r: { skuId: string | null }) => r.skuId)).toEqual(shelf.products.map((p) => p.product));
    // A second batch reuses the catalog the workers already hold; a changed catalog is sent again.
    expect(await identifyCrops(crops.slice(0, 5), identifier, undefined, pool)).toEqual(local.slice(0, 5));
    const smaller = new Identifier(PIPELINE_IDENTIFIER);
    for (const r of identifier.references()) if (r.skuId !== 'fanta_pet') smaller.add(r);
    expect(await identifyCrops(crops, smaller, undefined, pool)).toEqual(await identifyCrops(crops, smaller));
    // Crops seen as the lower part of their pack (cut by the photo's top edge) reach the workers as such:
    // the same answers as in-process, which compared them with the references' lower parts too.
    const views = crops.map(() => 'lower');
    const viewed = await identifyCrops(crops, identifier, undefined, undefined, views);
    expect(viewed).not.toEqual(local);
    expect(await identifyCrops(crops, identifier, undefined, pool, views)).toEqual(viewed);
  }, 120_000);
});
