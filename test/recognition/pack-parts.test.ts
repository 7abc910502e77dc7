// Issue 38, fourth round, on real shelf photos and the catalog's own packshots
// (../shared/data/shelf-recognition-exam):
// - a pack cut by the photo's top edge is compared also with the lower part of each packshot
//   (describeReference's parts; identifier.ts, `view`): Cheerios in a dense shelf's top row, of which
//   only the lower half shows, were unknown against the whole packshots;
// - siblings whose local features agree about as much (the big red K of every Special K) are told apart
//   by appearance and colour (PIPELINE_IDENTIFIER.alikeInliers): a Red Fruit and a Cioccolato Fondente
//   facing were left unknown between their siblings;
// - matches past saturation count between look-alikes (PIPELINE_IDENTIFIER.contestSaturated): a Nesquik
//   Duo facing was taken for its German sibling, a hair more alike, whose 63 matches saturated the bonus
//   before its own packshot's 130 were counted;
// - a box left unknown with free space below is looked at again extended downwards (look-again.ts): the
//   detector boxes top-row Cheerios above their lower band, and such a crop matched no packshot.
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { visiblePart } from '../../main/server/recognition/identification/cut-by-frame.js';
import { extensionBelow } from '../../main/server/recognition/identification/look-again.js';
import { identifyBoxes } from '../../main/server/recognition/pipeline.js';
import { decodeDescriptor, describeQuery, describeReference, encodeDescriptor, type PackView, type ProductDescriptor } from '../../main/server/recognition/identification/describe.js';
import { Identifier, PIPELINE_IDENTIFIER, type IdentifierOptions } from '../../main/server/recognition/identification/identifier.js';
import type { RawPixels } from '../../main/server/recognition/raw-pixels.js';
import { DATA } from './fixtures.js';

const EXAM = path.join(DATA, 'shelf-recognition-exam');
// SKU -> packshots, as bench/identify-shelves.counts.json (9 and 23 are one product).
const PACKSHOTS: Record<string, number[]> = Object.fromEntries(
  Array.from({ length: 27 }, (_, i) => i)
    .filter((i) => i !== 23)
    .map((i) => [String(i), i === 9 ? [9, 23] : [i]]),
);

let descriptors: Array<{ id: string; skuId: string; descriptor: ProductDescriptor }>;
const photos = new Map<string, RawPixels>();

function identifier(options: IdentifierOptions = PIPELINE_IDENTIFIER): Identifier {
  const id = new Identifier(options);
  for (const d of descriptors) id.add(d);
  return id;
}

async function photo(name: string): Promise<RawPixels> {
  let raw = photos.get(name);
  if (!raw) {
    const { data, info } = await sharp(path.join(EXAM, 'scenes', `${name}.${name.startsWith('h') ? 'jpg' : 'png'}`)).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
    raw = { data, width: info.width, height: info.height, channels: info.channels };
    photos.set(name, raw);
  }
  return raw;
}

/** The SKU given to a box [x1, y1, x2, y2] of a photo, seen whole or as the part `view` of its pack. */
async function identify(id: Identifier, name: string, [x1, y1, x2, y2]: number[], view?: PackView): Promise<string | null> {
  const query = await describeQuery(await photo(name), { x: x1, y: y1, w: x2 - x1, h: y2 - y1 });
  if (view) query.view = view;
  return (await id.identify(query)).skuId;
}

beforeAll(async () => {
  descriptors = [];
  for (const [skuId, files] of Object.entries(PACKSHOTS)) {
    for (const f of files) descriptors.push({ id: `p${f}`, skuId, descriptor: await describeReference(path.join(EXAM, 'models', `${f}.jpg`)) });
  }
}, 180_000);

describe('reference parts', () => {
  it('describes a packshot with its upper and lower parts, and stores them', async () => {
    const d = descriptors.find((x) => x.id === 'p22')!.descriptor;
    expect(d.parts?.map((p) => p.view)).toEqual(['upper', 'lower', 'upper', 'lower']);
    // A part is another image than the whole: its embedding differs.
    for (const p of d.parts!) expect(p.descriptor.embedding).not.toEqual(d.embedding);
    const back = decodeDescriptor(encodeDescriptor(d))!;
    expect(back.embedding).toEqual(d.embedding);
    expect(back.parts?.map((p) => p.view)).toEqual(d.parts!.map((p) => p.view));
    back.parts!.forEach((p, i) => {
      expect(p.descriptor.embedding).toEqual(d.parts![i].descriptor.embedding);
      expect(p.descriptor.colour).toEqual(d.parts![i].descriptor.colour);
      expect(p.descriptor.local.count).toBe(d.parts![i].descriptor.local.count);
      expect(p.descriptor.parts).toBeUndefined();
    });
    // A blob of the previous format (no parts) is recomputed when loaded, not read without its parts.
    const older = encodeDescriptor(d);
    older.writeUInt32LE(3, 0);
    expect(decodeDescriptor(older)).toBeNull();
    // Truncated in its parts: not a descriptor.
    expect(decodeDescriptor(encodeDescriptor(d).subarray(0, encodeDescriptor(d).length - 10))).toBeNull();
  });

  it('takes the part a box shows from the edge that cuts it', () => {
    const H = 480;
    expect(visiblePart({ x1: 0, y1: 2, x2: 50, y2: 40 }, H)).toBe('lower');
    expect(visiblePart({ x1: 0, y1: 400, x2: 50, y2: 478 }, H)).toBe('upper');
    expect(visiblePart({ x1: 0, y1: 200, x2: 50, y2: 260 }, H)).toBeUndefined();
  });

  it('identifies a top-row pack cut by the frame against the lower part of its packshot', async () => {
    const id = identifier();
    // Cheerios Miele (22) in the top row of a dense shelf, the photo's edge cutting off their upper half
    // (the detector's boxes).
    const cheerios = [
      ['h4', [205.729, 6.212, 263.243, 53.864]],
      ['h4', [276.163, 11.382, 328.785, 55.968]],
    ] as const;
    for (const [name, box] of cheerios) {
      expect(await identify(id, name, [...box]), `${name} ${box}: whole packshots`).toBeNull();
      expect(await identify(id, name, [...box], 'lower'), `${name} ${box}: with their lower parts`).toBe('22');
    }
  }, 60_000);
});

describe('siblings that local features cannot tell apart', () => {
  // Special K facings of a dense shelf (h1), mid-photo (the detector's boxes): each matches the red K of
  // all three Special K packshots about as well (20-25 matches).
  const facings = [
    { box: [193.043, 181.751, 259.674, 255.29], sku: '10', what: 'Cioccolato Fondente' },
    { box: [128.416, 284.527, 187.059, 342.894], sku: '20', what: 'Red Fruit' },
  ];

  it('are told apart by appearance and colour', async () => {
    const id = identifier();
    for (const f of facings) expect(await identify(id, 'h1', f.box), f.what).toBe(f.sku);
  }, 60_000);

  it('were left unknown when the few more matches of one sibling counted', async () => {
    const id = identifier({ ...PIPELINE_IDENTIFIER, alikeInliers: 0 });
    for (const f of facings) expect(await identify(id, 'h1', f.box), f.what).toBeNull();
  }, 60_000);
});

describe('matches past saturation', () => {
  // Nesquik Duo cioccolato bianco (26): on a close-up (m4) the detector's box stops above the pack's pink
  // band, and what it shows matches the German pack (6) on 63 points, its own packshot on 130; on a dense
  // shelf (h4) two facings of it, and two of Nesquik cereali (5), which both Nesquik Duo packshots match
  // on 24-31 points.
  const facings = [
    { name: 'm4', box: [764.123, 32.78, 1102.639, 360.287], sku: '26' },
    { name: 'h4', box: [230.983, 209.734, 292.67, 274.506], sku: '26' },
    { name: 'h4', box: [291.831, 210.979, 351.918, 280.518], sku: '26' },
    { name: 'h4', box: [316.967, 96.051, 385.471, 171.759], sku: '5' },
    { name: 'h4', box: [253.338, 95.883, 319.554, 171.148], sku: '5' },
  ];

  it('tell a pack from a sibling that saturated the bonus first', async () => {
    const id = identifier();
    for (const f of facings) expect(await identify(id, f.name, f.box), `${f.name} ${f.box}`).toBe(f.sku);
  }, 60_000);

  it('took the sibling while saturated SKUs tied', async () => {
    const id = identifier({ ...PIPELINE_IDENTIFIER, contestSaturated: 0 });
    expect(await identify(id, 'm4', facings[0].box)).toBe('6');
  }, 60_000);
});

describe('boxes stopping above their pack\'s lower band', () => {
  // h2's top row: two Cheerios Miele (22) boxed without the "con più gusto di miele" band below their
  // logo (the photo's edge cuts their top), and the detector's boxes of the next shelf below them.
  const cheerios = [
    { x1: 256.527, y1: 3.014, x2: 317.267, y2: 41.328, score: 0.454 },
    { x1: 194.849, y1: 2.016, x2: 255.066, y2: 42.258, score: 0.435 },
  ];
  const below = [
    { x1: 245.443, y1: 101.868, x2: 301.303, y2: 165.886, score: 0.512 },
    { x1: 296.705, y1: 99.037, x2: 355.907, y2: 169.612, score: 0.476 },
    { x1: 110.405, y1: 97.777, x2: 174.095, y2: 170.015, score: 0.484 },
  ];

  it('extends a box into free space only, not over another box', () => {
    // 0.7 of its height down, the next shelf's boxes being farther.
    const { x1, y1, x2, y2 } = cheerios[0];
    const extended = extensionBelow(cheerios[0], [...cheerios, ...below], 480)!;
    expect([extended.x1, extended.y1, extended.x2]).toEqual([x1, y1, x2]);
    expect(extended.y2).toBeCloseTo(y2 + 0.7 * (y2 - y1), 6);
    // Stopped by a box below: extended to its top.
    const near = { x1: 250, y1: 65, x2: 310, y2: 120 };
    expect(extensionBelow(cheerios[0], [cheerios[0], near], 480)?.y2).toBe(65);
    // Too little free below (a quarter of its height), or the photo's edge: not looked at again.
    expect(extensionBelow(cheerios[0], [cheerios[0], { ...near, y1: 50 }], 480)).toBeUndefined();
    expect(extensionBelow({ x1: 0, y1: 400, x2: 60, y2: 470 }, [], 480)).toBeUndefined();
    // A sliver above another box (h4: a strip of a Cheerios pack above its own box) would become that
    // box: not looked at again.
    const sliver = { x1: 270.624, y1: 2.945, x2: 335.194, y2: 32.576 };
    expect(extensionBelow(sliver, [sliver, { x1: 276.163, y1: 11.382, x2: 328.785, y2: 55.968 }], 480)).toBeUndefined();
  });

  it('identifies a top-row pack boxed above its lower band, extended', async () => {
    const id = identifier();
    const raw = await photo('h2');
    for (const box of cheerios) {
      // The box alone, as the identifier sees it: nothing is even 0.6 alike.
      expect(await identify(id, 'h2', [box.x1, box.y1, box.x2, box.y2], 'lower')).toBeNull();
    }
    const identified = await identifyBoxes(raw, [...cheerios, ...below], id);
    expect(identified.slice(0, 2).map((b) => b.sku_id)).toEqual(['22', '22']);
    // The boxes below keep their own answers (Nesquik cereali, Mr Kanny Slim).
    expect(identified.slice(2).map((b) => b.sku_id)).toEqual(['5', '5', '4']);
  }, 60_000);
});
