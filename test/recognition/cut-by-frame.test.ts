// Packs cut by the photo's top or bottom edge (identification/cut-by-frame.ts): their clear best
// candidate is taken although it falls short of the identifier's sureness; the floor and the margin still
// hold, and a box away from those edges is judged as before.
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { CUT_FLOOR, CUT_MARGIN, cutByFrame, takeCutPacks } from '../../main/server/recognition/identification/cut-by-frame.js';
import { describeProduct } from '../../main/server/recognition/identification/describe.js';
import type { CropIdentity } from '../../main/server/recognition/identification/identify-crops.js';
import { Identifier, PIPELINE_IDENTIFIER } from '../../main/server/recognition/identification/identifier.js';
import { identifyBoxes } from '../../main/server/recognition/pipeline.js';
import { groceryPackshots, referenceFiles, unseenFiles, UPRIGHT } from './fixtures.js';

const unknown = (scores: Array<[string, number]>): CropIdentity => ({ skuId: null, score: 0.3, suggestions: scores.map(([skuId, score]) => ({ skuId, score })) });
const H = 480;
const top = { x1: 100, y1: 3, x2: 160, y2: 55 };
const middle = { x1: 100, y1: 200, x2: 160, y2: 260 };
const bottom = { x1: 100, y1: 420, x2: 160, y2: 478 };
const left = { x1: 0, y1: 200, x2: 30, y2: 260 };

describe('packs cut by the top or bottom of the photo', () => {
  it('counts a box within 5 % of the top or bottom edge as cut, not one at the sides', () => {
    expect([top, middle, bottom, left].map((b) => cutByFrame(b, H))).toEqual([true, false, true, false]);
  });

  it('takes the clear best candidate of an unknown cut box, and only there', () => {
    const id = unknown([['17', 0.78], ['16', 0.7], ['22', 0.5]]);
    const out = takeCutPacks([top, middle, bottom, left], [id, id, id, id], H);
    expect(out.map((o) => o.skuId)).toEqual(['17', null, '17', null]);
    // The rest of the identity (suggestions for the reviewer, confidence) is kept.
    expect(out[0].suggestions).toEqual(id.suggestions);
    expect(out[0].score).toBe(id.score);
  });

  it('keeps the floor and the margin: a weak or contested best candidate stays unknown', () => {
    const weak = unknown([['22', CUT_FLOOR - 0.01], ['4', 0.4]]);
    const contested = unknown([['17', 0.7], ['16', 0.7 - CUT_MARGIN + 0.01]]);
    const none = unknown([]);
    const alone = unknown([['9', 0.7]]);
    expect(takeCutPacks([top, top, top, top], [weak, contested, none, alone], H).map((o) => o.skuId)).toEqual([null, null, null, '9']);
  });

  it('leaves an identified cut box as it was', () => {
    const taken: CropIdentity = { skuId: '16', score: 0.5, suggestions: [{ skuId: '17', score: 0.9 }, { skuId: '16', score: 0.6 }] };
    expect(takeCutPacks([top], [taken], H)[0]).toBe(taken);
  });
});

describe('a real pack cut by the top of a photo', () => {
  let identifier: Identifier;
  beforeAll(async () => {
    identifier = new Identifier(PIPELINE_IDENTIFIER);
    for (const p of UPRIGHT) {
      for (const [i, f] of referenceFiles(p).entries()) identifier.add({ id: `${p}-${i}`, skuId: p, descriptor: await describeProduct(f) });
    }
    for (const g of groceryPackshots(20)) identifier.add({ id: g.name, skuId: g.name, descriptor: await describeProduct(g.file) });
  }, 120_000);

  it('is taken as its SKU where the same pixels away from the edge stay unknown; never as another SKU', async () => {
    const rescued: string[] = [];
    for (const p of UPRIGHT) {
      for (const file of unseenFiles(p).slice(0, 3)) {
        // The pack's lower 55 %, as the top shelf of a photo shows it: against the top edge, and mid-photo.
        const meta = await sharp(file).metadata();
        const w = Math.round((meta.width! * 200) / meta.height!);
        const full = await sharp(file).resize(w, 200, { fit: 'fill' }).removeAlpha().raw().toBuffer();
        const cut = 90;
        const part = full.subarray(cut * w * 3);
        const h = 200 - cut;
        const canvas = await sharp({ create: { width: 500, height: 500, channels: 3, background: { r: 200, g: 200, b: 200 } } })
          .composite([
            { input: part, raw: { width: w, height: h, channels: 3 }, left: 10, top: 0 },
            { input: part, raw: { width: w, height: h, channels: 3 }, left: 250, top: 200 },
          ])
          .removeAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
        const raw = { data: canvas.data, width: 500, height: 500, channels: 3 as const };
        const [atEdge, inside] = await identifyBoxes(raw, [
          { x1: 10, y1: 0, x2: 10 + w, y2: h, score: 1 },
          { x1: 250, y1: 200, x2: 250 + w, y2: 200 + h, score: 1 },
        ], identifier);
        if (atEdge.sku_id !== null) expect(atEdge.sku_id, file).toBe(p);
        if (inside.sku_id === null && atEdge.sku_id === p) rescued.push(p);
      }
    }
    // 3 of 15 on the Grocery Store crops (cocacola_pet once, minute_maid twice) when this was written.
    expect(rescued.length).toBeGreaterThan(0);
  }, 120_000);
});
