// Identification and shelf layout on real images, without the detector: the products of a composed
// shelf photo are cut at the boxes where they were placed and identified against reference crops of
// the same SKUs (other crops than the ones on the shelf) among Grocery Store packshot distractors.
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeDescriptor, describeProduct, encodeDescriptor } from '../../main/server/recognition/identification/describe.js';
import { Identifier, PIPELINE_IDENTIFIER } from '../../main/server/recognition/identification/identifier.js';
import { identifyBoxes } from '../../main/server/recognition/pipeline.js';
import { groupIntoShelves } from '../../main/server/recognition/shelves.js';
import { composeShelf, cropFiles, groceryPackshots, referenceFiles, unseenFiles, UPRIGHT, type ComposedShelf } from './fixtures.js';

const LAYOUT: Array<Array<[string, number]>> = [
  [['fanta_pet', 3], ['sprite_pet', 2], ['cocacola_pet', 2], ['cream_soda_pet', 2]],
  [['minute_maid', 4], ['fanta_pet', 2], ['sprite_pet', 1]],
  [['cocacola_pet', 3], ['cream_soda_pet', 3]],
];

let identifier: Identifier;
let shelf: ComposedShelf;

beforeAll(async () => {
  identifier = new Identifier();
  for (const p of UPRIGHT) {
    for (const [i, f] of referenceFiles(p).entries()) identifier.add({ id: `${p}-${i}`, skuId: p, descriptor: await describeProduct(f) });
  }
  for (const g of groceryPackshots(20)) identifier.add({ id: g.name, skuId: g.name, descriptor: await describeProduct(g.file) });
  shelf = await composeShelf(LAYOUT);
}, 120_000);

describe('identification', () => {
  it('identifies every product of the composed shelf', async () => {
    const { data, info } = await sharp(shelf.jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const raw = { data, width: info.width, height: info.height, channels: info.channels };
    const found = await identifyBoxes(raw, shelf.products.map((p) => ({ ...p, score: 1 })), identifier);
    const wrong = found.map((f, i) => [shelf.products[i].product, f.sku_id]).filter(([want, got]) => want !== got);
    expect(wrong).toEqual([]);
    for (const f of found) expect(f.sku_score).toBeGreaterThan(0);
  });

  it('matches an unseen crop of each SKU to its SKU, and only that', async () => {
    for (const p of UPRIGHT) {
      const unseen = unseenFiles(p)[1];
      const r = await identifier.identify(await describeProduct(unseen));
      expect(r.skuId, p).toBe(p);
      expect(r.candidates[0].skuId).toBe(p);
    }
  });

  it('calls a product absent from the catalog unknown', async () => {
    // Cans lying on their side are not in this catalog (only upright bottles and cartons are).
    const small = new Identifier();
    for (const p of ['fanta_pet', 'sprite_pet']) {
      for (const [i, f] of referenceFiles(p).entries()) small.add({ id: `${p}-${i}`, skuId: p, descriptor: await describeProduct(f) });
    }
    const r = await small.identify(await describeProduct(cropFiles('cocacola_zero_can')[0]));
    expect(r.skuId).toBeNull();
  });

  it("verifies a look-alike's lead instead of taking it: the pack whose local features agree wins", async () => {
    // A crop, a look-alike reference that the appearance puts 0.15 ahead (same colours and embedding,
    // another pack's local features: the words differ), and its own SKU's reference 0.85 alike by
    // appearance whose local features agree. Taken on appearance, the look-alike would win.
    const query = await describeProduct(unseenFiles('fanta_pet')[0]);
    const other = await describeProduct(unseenFiles('sprite_pet')[0]);
    const e = query.embedding;
    // A unit vector orthogonal to the query's embedding, then the reference's at cosine c: 0.7 c + 0.3 = 0.85.
    const u = Float32Array.from(other.embedding);
    const dot = u.reduce((s, v, i) => s + v * e[i], 0);
    for (let i = 0; i < u.length; i++) u[i] -= dot * e[i];
    const norm = Math.hypot(...u);
    const c = (0.85 - 0.3) / 0.7;
    const embedding = Float32Array.from(e, (v, i) => c * v + Math.sqrt(1 - c * c) * (u[i] / norm));
    const make = (acceptMargin?: number) => {
      const i = new Identifier({ ...PIPELINE_IDENTIFIER, ...(acceptMargin === undefined ? {} : { acceptMargin }) });
      i.add({ id: 'lookalike', skuId: 'lookalike', descriptor: { embedding: query.embedding, global: query.global, colour: query.colour, local: other.local } });
      i.add({ id: 'own', skuId: 'own', descriptor: { embedding, global: query.global, colour: query.colour, local: query.local } });
      return i;
    };
    const ident = make();
    const [first, second] = ident.rankGlobal(query);
    expect(first.skuId).toBe('lookalike');
    expect(first.similarity - second.similarity).toBeCloseTo(0.15, 2);
    const got = await ident.identify(query);
    expect(got.skuId).toBe('own');
    expect(got.candidates.find((k) => k.skuId === 'own')!.inliers).toBeGreaterThanOrEqual(16);
    // The old setting (0.1 ahead accepted unverified) took the look-alike.
    expect((await make(0.1).identify(query)).skuId).toBe('lookalike');
  });

  it('stores descriptors as bytes and reads them back unchanged', async () => {
    const d = await describeProduct(cropFiles('fanta_pet')[0]);
    const back = decodeDescriptor(encodeDescriptor(d));
    expect(back).not.toBeNull();
    expect(Array.from(back!.global)).toEqual(Array.from(d.global));
    expect(Array.from(back!.embedding)).toEqual(Array.from(d.embedding));
    expect(Array.from(back!.colour)).toEqual(Array.from(d.colour));
    expect(back!.local.count).toBe(d.local.count);
    expect(Buffer.from(back!.local.descriptors).equals(Buffer.from(d.local.descriptors))).toBe(true);
    expect(decodeDescriptor(Buffer.from('not a descriptor'))).toBeNull();
    // Embedded by another model (its fingerprint follows the classic descriptor): not comparable, so
    // not decoded; the caller recomputes it.
    const other = encodeDescriptor(d);
    const at = 8 + d.global.length * 4;
    other.writeUInt32LE((other.readUInt32LE(at) + 1) >>> 0, at);
    expect(decodeDescriptor(other)).toBeNull();
    // Written before the colour layout was stored (version 2): recomputed too.
    const older = encodeDescriptor(d);
    older.writeUInt32LE(2, 0);
    expect(decodeDescriptor(older)).toBeNull();
  });
});

describe('shelves', () => {
  it('groups the placed products into rows, left to right', () => {
    const layout = groupIntoShelves(shelf.products);
    expect(layout.shelves).toHaveLength(3);
    for (const p of layout.placed) expect(p.shelf).toBe(p.item.shelf);
    const row0 = layout.placed.filter((p) => p.shelf === 0).sort((a, b) => a.position - b.position).map((p) => p.item.product);
    expect(row0).toEqual(['fanta_pet', 'fanta_pet', 'fanta_pet', 'sprite_pet', 'sprite_pet', 'cocacola_pet', 'cocacola_pet', 'cream_soda_pet', 'cream_soda_pet']);
  });

  it('keeps a taller product on its row and tolerates a tilted row', () => {
    const row = (y: number, n: number, tilt = 0) =>
      Array.from({ length: n }, (_, i) => ({ x1: i * 50, y1: y + i * tilt, x2: i * 50 + 45, y2: y + 100 + i * tilt }));
    const tall = { x1: 500, y1: -40, x2: 545, y2: 100 };
    const layout = groupIntoShelves([...row(0, 10, 2), tall, ...row(130, 10, 2)]);
    expect(layout.shelves).toHaveLength(2);
    expect(layout.placed.find((p) => p.item === tall)!.shelf).toBe(0);
  });

  it('keeps short cans and tall bottles standing on one board in one row', () => {
    // Alternating 300 px bottles and 100 px cans on a board at y = 300, the same below at y = 650.
    const row = (bottom: number) => Array.from({ length: 8 }, (_, i) => {
      const h = i % 2 ? 100 : 300;
      return { x1: i * 60, y1: bottom - h, x2: i * 60 + 55, y2: bottom - (i % 3) };
    });
    const layout = groupIntoShelves([...row(300), ...row(650)]);
    expect(layout.shelves).toHaveLength(2);
    expect(layout.placed.filter((p) => p.shelf === 0).every((p) => p.item.y2 <= 300)).toBe(true);
  });
});
