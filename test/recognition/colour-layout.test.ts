// Colour layout (identification/colour-layout.ts) and how identification uses it with the margin between
// its two best candidates (identifier.ts): a pack photographed darker and smaller keeps its layout, a
// sibling with one side recoloured does not; between two references alike in everything but their
// colour patches, the one whose patches match is taken; and a crop between two equally good
// candidates is left unknown (a third sibling), as the pipeline's identifier is set to do.
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { colourDistance, colourLayout, COLOUR_LEN } from '../../main/server/recognition/identification/colour-layout.js';
import { describeProduct, type ProductDescriptor } from '../../main/server/recognition/identification/describe.js';
import { Identifier, PIPELINE_IDENTIFIER } from '../../main/server/recognition/identification/identifier.js';
import { unseenFiles } from './fixtures.js';

const square = async (image: Buffer) => {
  const { data } = await sharp(image).removeAlpha().resize(96, 96, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
  return { data, width: 96, height: 96, channels: 3 };
};

let pack: Buffer;
let sibling: Buffer;

beforeAll(async () => {
  pack = await sharp(unseenFiles('fanta_pet')[0]).removeAlpha().png().toBuffer();
  const { width, height } = await sharp(pack).metadata();
  // The same pack with its right half in other colours: a sibling pack of one brand.
  const half = Math.round(width! / 2);
  const right = await sharp(pack).extract({ left: half, top: 0, width: width! - half, height: height! }).modulate({ hue: 150 }).toBuffer();
  sibling = await sharp(pack).composite([{ input: right, left: half, top: 0 }]).png().toBuffer();
});

describe('colour layout', () => {
  it('keeps a pack under shelf light and scale close, and tells a recoloured sibling apart', async () => {
    const own = colourLayout(await square(pack));
    expect(own).toHaveLength(COLOUR_LEN);
    // Darker as a whole, 50 px wide, JPEG: what a dense shelf photo gives.
    const onShelf = await sharp(await sharp(pack).resize({ width: 50 }).modulate({ brightness: 0.7 }).jpeg({ quality: 60 }).toBuffer()).png().toBuffer();
    const near = colourDistance(own, colourLayout(await square(onShelf)));
    const far = colourDistance(own, colourLayout(await square(sibling)));
    expect(colourDistance(own, own)).toBe(0);
    expect(near).toBeLessThan(12);
    expect(far).toBeGreaterThan(2 * near);
    expect(far).toBeGreaterThan(15);
  });
});

describe('identification with colour and margin', () => {
  // Two references alike in embedding, classic descriptor and local features (those of another pack,
  // so that verification finds next to nothing), differing only in colour layout.
  let query: ProductDescriptor;
  let refs: { own: ProductDescriptor; sibling: ProductDescriptor };

  beforeAll(async () => {
    query = await describeProduct(pack);
    const other = await describeProduct(unseenFiles('sprite_pet')[0]);
    const recoloured = await describeProduct(sibling);
    const base = { embedding: query.embedding, global: query.global, local: other.local };
    refs = { own: { ...base, colour: query.colour }, sibling: { ...base, colour: recoloured.colour } };
  });

  const make = (options = {}) => {
    const i = new Identifier({ ...PIPELINE_IDENTIFIER, ...options });
    // The sibling first: on equal scores, the order of addition would decide.
    i.add({ id: 'b', skuId: 'sibling', descriptor: refs.sibling });
    i.add({ id: 'a', skuId: 'own', descriptor: refs.own });
    return i;
  };

  it('takes the reference whose colour patches match', async () => {
    const got = await make().identify(query);
    expect(got.skuId).toBe('own');
    const [best, next] = got.candidates;
    expect(best.skuId).toBe('own');
    expect(next.colour! - best.colour!).toBeGreaterThan(10);
    expect(best.score - next.score).toBeGreaterThanOrEqual(PIPELINE_IDENTIFIER.unknownMargin!);
  });

  it('leaves a crop between two equally good candidates unknown', async () => {
    // Without colour the two references are alike: a coin toss, which the margin refuses...
    const tie = await make({ colourWeight: 0 }).identify(query);
    expect(tie.candidates[0].score - tie.candidates[1].score).toBeLessThan(0.01);
    expect(tie.skuId).toBeNull();
    expect(tie.candidates.map((c) => c.skuId).sort()).toEqual(['own', 'sibling']);
    // ...and which was taken without it.
    expect((await make({ colourWeight: 0, unknownMargin: 0 }).identify(query)).skuId).not.toBeNull();
  });
});
