// Look-alikes told apart by their printed text (recognition/text/pack-text.ts): the comparison of what
// is read with the SKU names, and, through the real OCR, a drawn pack whose appearance chose its
// sibling: the pack that names "Fondente" is taken for Special K Cioccolato Fondente, not Classic;
// crops where no sibling looks more alike than the SKU taken are not read at all.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { CropIdentity } from '../../main/server/recognition/identification/identify-crops.js';
import type { RawPixels } from '../../main/server/recognition/raw-pixels.js';
import { checkLookAlikesByText, decideByText, siblings, textAgreement, trigrams, words, type SkuText } from '../../main/server/recognition/text/pack-text.js';

const sku = (name: string, attributes: string[] = []): SkuText => ({ name, text: [name, ...attributes].join(' ') });
const NAMES = new Map<string, SkuText>([
  ['classic', sku('Special K Classic')],
  ['fondente', sku('Special K Cioccolato Fondente')],
  ['red', sku('Special K Red Fruit', ['frutti rossi'])],
  ['krave', sku('Choco Krave cioccolato al latte')],
]);

const identity = (skuId: string, lookAlikes: { skuId: string; gap: number }[]): CropIdentity => ({
  skuId,
  score: 0.5,
  suggestions: [{ skuId, score: 1.2 }, ...lookAlikes.map((l) => ({ skuId: l.skuId, score: 1 }))],
  lookAlikes,
});

describe('comparing the read text with SKU names', () => {
  it('normalises words and letter triples (accents, case, merged words)', () => {
    expect(words('Cioccolato FONDENTE, 45% Vollkörn')).toEqual(['cioccolato', 'fondente', '45%', 'vollkorn']);
    expect([...trigrams('K Duo')]).toEqual(['duo']);
    // A misread letter keeps most triples: "Fondenta" against "Fondente".
    const read = trigrams('K Fondenta');
    expect(textAgreement(read, 'Special K Cioccolato Fondente')).toBeCloseTo(5 / 6, 5);
    expect(textAgreement(read, 'Special K Classic')).toBe(0);
    // Too little read to say anything.
    expect(textAgreement(trigrams('K'), 'Special K Classic')).toBeNull();
  });

  it('calls SKUs sharing a word of their names siblings', () => {
    expect(siblings('Special K Classic', 'Special K Red Fruit')).toBe(true);
    expect(siblings('Special K Classic', 'Choco Krave cioccolato al latte')).toBe(false);
    // "al", "K": too short to make a brand.
    expect(siblings('Choco Krave al latte', 'Special K al cacao')).toBe(false);
  });

  it('takes the one sibling whose name the text reads, and only then', () => {
    const id = identity('classic', [{ skuId: 'red', gap: -0.07 }, { skuId: 'fondente', gap: -0.04 }]);
    const taken = decideByText(id, trigrams('K Fondenta'), NAMES);
    expect(taken.skuId).toBe('fondente');
    expect(taken.suggestions[0].skuId).toBe('fondente');
    expect(taken.suggestions).toHaveLength(3);
    // The text names the SKU taken: it stands.
    expect(decideByText(id, trigrams('Special K Classic'), NAMES)).toBe(id);
    // An attribute's value counts as printed text too.
    expect(decideByText(id, trigrams('FRUTTI ROSSI'), NAMES).skuId).toBe('red');
    // Both siblings read (shared words only): no choice between them.
    expect(decideByText(id, trigrams('Special'), NAMES)).toBe(id);
    // Nothing legible.
    expect(decideByText(id, trigrams('K'), NAMES)).toBe(id);
  });
});

async function pack(word: string): Promise<RawPixels> {
  // A white pack with a red K and one line of smaller print, as big as a close-up's facing.
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="320"><rect width="240" height="320" fill="#f4f4f0"/>` +
    `<text x="40" y="170" font-family="DejaVu Sans" font-size="150" font-weight="bold" fill="#c0141c">K</text>` +
    `<text x="24" y="260" font-family="DejaVu Sans" font-size="34" fill="#3a2010">${word}</text></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

describe('reading the look-alikes of a photo', () => {
  it("reads the contested crop and takes the sibling its text names; leaves the others unread", async () => {
    const crops = [await pack('Fondente'), await pack('Fondente'), await pack('Classic')];
    const contested = identity('classic', [{ skuId: 'fondente', gap: -0.04 }]);
    // Taken with a lead over its sibling: not in doubt, not read (even though it would say otherwise).
    const leading = identity('classic', [{ skuId: 'fondente', gap: 0.05 }]);
    // The first two crops are one facing repeated: one identity object (identify-crops.ts).
    const got = await checkLookAlikesByText(crops, [contested, contested, leading], NAMES);
    expect(got[0].skuId).toBe('fondente');
    expect(got[0].readText).toMatch(/fondente/i);
    expect(got[1]).toBe(got[0]);
    expect(got[2]).toBe(leading);
    // No sibling among the look-alikes: nothing to read either.
    const alone = identity('krave', [{ skuId: 'classic', gap: -0.05 }]);
    expect((await checkLookAlikesByText([crops[0]], [alone], NAMES))[0]).toBe(alone);
    // Past the per-photo cap, crops are not read.
    expect((await checkLookAlikesByText(crops, [contested, contested, leading], NAMES, 0))[0]).toBe(contested);
  });
});
