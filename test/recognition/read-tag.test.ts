// Reading price tags (recognition/prices/read-tag.ts): tags the test draws itself with known prices in
// the ways shops print them (decimal comma, small raised cents, a unit price, a promotion, a barcode),
// read through the real OCR and barcode models; and real tags cut from a shelf photo.
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { loadOpenCv } from '../../main/server/recognition/opencv.js';
import type { RawPixels } from '../../main/server/recognition/raw-pixels.js';
import { readEan } from '../../main/server/recognition/prices/ean.js';
import { centsSign, joinSmallCents, readTags } from '../../main/server/recognition/prices/read-tag.js';
import { readTag } from '../../main/server/recognition/prices/price-text.js';
import { DATA } from './fixtures.js';

async function render(svg: string): Promise<RawPixels> {
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

const FONT = 'font-family="DejaVu Sans"';
const svg = (w: number, h: number, body: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="#fff"/>${body}</svg>`;

// EAN-13 bars, drawn from the standard's tables (an independent encoder: the reader must agree).
const L = ['0001101', '0011001', '0010011', '0111101', '0100011', '0110001', '0101111', '0111011', '0110111', '0001011'];
const G = ['0100111', '0110011', '0011011', '0100001', '0011101', '0111001', '0000101', '0010001', '0001001', '0010111'];
const R = L.map((code) => [...code].map((b) => (b === '0' ? '1' : '0')).join(''));
const PARITY = ['LLLLLL', 'LLGLGG', 'LLGGLG', 'LLGGGL', 'LGLLGG', 'LGGLLG', 'LGGGLL', 'LGLGLG', 'LGLGGL', 'LGGLGL'];
function ean13Modules(code: string): string {
  const d = [...code].map(Number);
  let bits = '101';
  for (let i = 1; i <= 6; i++) bits += (PARITY[d[0]][i - 1] === 'L' ? L : G)[d[i]];
  bits += '01010';
  for (let i = 7; i <= 12; i++) bits += R[d[i]];
  return bits + '101';
}
function barcode(code: string, x: number, y: number, module: number, height: number): string {
  return [...ean13Modules(code)].map((b, i) => (b === '1' ? `<rect x="${x + i * module}" y="${y}" width="${module}" height="${height}" fill="#000"/>` : '')).join('');
}

const price = (r: { reading: { status: string } & ({ price: { hundredths: number } } | { reason: string }) }) =>
  r.reading.status === 'read' && 'price' in r.reading ? r.reading.price.hundredths : `unreadable`;

describe('reading drawn tags', () => {
  it('reads the price, its small raised cents, a unit price and a promotion, each told apart', async () => {
    // Four tags side by side on one image, each 300 x 150.
    const tags = [
      // Decimal comma, the product's name small above.
      `<text x="12" y="30" ${FONT} font-size="18">Butter 250 g</text><text x="60" y="115" ${FONT} font-size="64" font-weight="bold">2,49</text>`,
      // Euros large, cents small and raised beside them (no decimal mark printed).
      `<text x="70" y="120" ${FONT} font-size="90" font-weight="bold">1</text><text x="130" y="70" ${FONT} font-size="40" font-weight="bold">99</text>`,
      // A unit price in small print under the shelf price.
      `<text x="60" y="85" ${FONT} font-size="60" font-weight="bold">3.98</text><text x="20" y="130" ${FONT} font-size="18">1 kg = 7.96</text>`,
      // A promotion beside the price.
      `<text x="12" y="36" ${FONT} font-size="26">2 for 5.00</text><text x="70" y="120" ${FONT} font-size="60" font-weight="bold">2.79</text>`,
    ];
    const raw = await render(`<svg xmlns="http://www.w3.org/2000/svg" width="1240" height="150"><rect width="1240" height="150" fill="#fff"/>${tags.map((t, i) => `<g transform="translate(${i * 310},0)">${t}</g>`).join('')}</svg>`);
    const boxes = tags.map((_, i) => ({ x1: i * 310, y1: 0, x2: i * 310 + 300, y2: 150 }));
    const [butter, raised, unit, promo] = await readTags(raw, boxes, { ean: false });
    expect(price(butter), butter.text).toBe(249);
    expect(price(raised), raised.text).toBe(199);
    expect(price(unit), unit.text).toBe(398);
    expect(unit.reading.unitPrice).toEqual({ price: { hundredths: 796, currency: null }, per: 'kg' });
    expect(price(promo), promo.text).toBe(279);
    expect(promo.reading.promotion).toEqual({ kind: 'bundle', quantity: 2, total: { hundredths: 500, currency: null } });
    for (const r of [butter, raised, unit, promo]) expect(r.read_score).toBeGreaterThan(0.8);
  });

  it('leaves a tag unreadable, with the reason, when its text is no clear price', async () => {
    const raw = await render(
      svg(
        940,
        150,
        // Nothing printed; a word only; two different prices printed equally large.
        `<text x="330" y="90" ${FONT} font-size="40">SPECIAL</text>` +
          `<text x="640" y="90" ${FONT} font-size="44" font-weight="bold">4.99</text><text x="800" y="90" ${FONT} font-size="44" font-weight="bold">5.49</text>`,
      ),
    );
    const reads = await readTags(raw, [
      { x1: 0, y1: 0, x2: 300, y2: 150 },
      { x1: 310, y1: 0, x2: 610, y2: 150 },
      { x1: 620, y1: 0, x2: 940, y2: 150 },
    ]);
    expect(reads.map((r) => r.reading.status)).toEqual(['unreadable', 'unreadable', 'unreadable']);
    expect(reads[0].text).toBe('');
    expect(reads[2].reading).toMatchObject({ reason: '2 different amounts printed largest' });
  });

  it('reads the EAN-13 a tag prints as a barcode, from the package on disk', async () => {
    const code = '4006381333931';
    const raw = await render(svg(360, 200, `<text x="90" y="70" ${FONT} font-size="56" font-weight="bold">1.29</text>${barcode(code, 40, 100, 2.5, 70)}`));
    expect(await readEan(raw)).toBe(code);
    const [tag] = await readTags(raw, [{ x1: 0, y1: 0, x2: 360, y2: 200 }]);
    expect(tag.ean).toBe(code);
    expect(price(tag)).toBe(129);
    // No barcode, no EAN.
    expect(await readEan(await render(svg(200, 100, '')))).toBeNull();
  });
});

describe('a small raised ¢ (US tags)', () => {
  it('reads "95" with a small ¢ beside its top as 95 cents, and neither raised cents digits nor a bare number so', async () => {
    // Three tags 130 x 70: 95¢ (the ¢ small and raised), 16⁰⁵ (raised cents digits), 95 alone.
    const tag = (x: number, body: string) => `<g transform="translate(${x},0)"><rect width="130" height="70" fill="#ffe14d"/>${body}</g>`;
    const raw = await render(
      svg(
        420,
        70,
        tag(0, `<text x="20" y="55" ${FONT} font-size="44" font-weight="bold">95</text><text x="84" y="32" ${FONT} font-size="20" font-weight="bold">¢</text>`) +
          tag(145, `<text x="20" y="55" ${FONT} font-size="44" font-weight="bold">16</text><text x="84" y="32" ${FONT} font-size="20" font-weight="bold">05</text>`) +
          tag(290, `<text x="20" y="55" ${FONT} font-size="44" font-weight="bold">95</text>`),
      ),
    );
    const [cents, raised, bare] = await readTags(
      raw,
      [0, 145, 290].map((x) => ({ x1: x, y1: 0, x2: x + 130, y2: 70 })),
      { ean: false },
    );
    expect(price(cents), cents.text).toBe(95);
    expect(price(raised), raised.text).not.toBe(16);
    expect([1605, 'unreadable']).toContain(price(raised));
    expect(price(bare), bare.text).toBe('unreadable');
  });
});

describe('a ¢ as large as the digits', () => {
  it('reads "72¢" and "34¢" that the OCR reads without their ¢ as cents, and a price followed by "/" or "!" not so', async () => {
    // Drawn twice as large, halved and JPEG-compressed, as tags are in a photo: the OCR drops the ¢.
    const texts = ['72¢', '34¢', '72/', '72!'];
    const reads = [];
    for (const text of texts) {
      const drawn = svg(150, 70, `<rect width="150" height="70" fill="#ffe14d"/><text x="30" y="55" ${FONT} font-size="44" font-weight="bold">${text}</text>`);
      const jpeg = await sharp(Buffer.from(drawn)).resize(75).jpeg({ quality: 80 }).toBuffer();
      const { data, info } = await sharp(jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const [tag] = await readTags({ data, width: info.width, height: info.height, channels: info.channels }, [{ x1: 0, y1: 0, x2: info.width, y2: info.height }], { ean: false });
      reads.push(tag);
    }
    expect(reads.map(price), reads.map((r) => r.text).join(' | ')).toEqual([72, 34, 'unreadable', 'unreadable']);
  });
});

describe('reading real tags', () => {
  it('reads shelf-edge tags of a real photo, with small raised cents and without', async () => {
    const { data, info } = await sharp(path.join(DATA, 'shelf-photos', 'test_799.jpg')).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const raw = { data, width: info.width, height: info.height, channels: info.channels };
    // Hand-labelled boxes (bench/prices.labels.json): 20⁵⁰, 15²⁰ and 9⁹⁰.
    const reads = await readTags(raw, [
      { x1: 165, y1: 1175, x2: 300, y2: 1252 },
      { x1: 315, y1: 1178, x2: 450, y2: 1252 },
      { x1: 470, y1: 1175, x2: 610, y2: 1252 },
    ]);
    expect(reads.map(price)).toEqual([2050, 1520, 990]);
  });

  it('reads the small raised ¢ of real US tags where it stands clear of the digits', async () => {
    const { data, info } = await sharp(path.join(DATA, 'shelf-photos', 'test_1234.jpg')).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const raw = { data, width: info.width, height: info.height, channels: info.channels };
    // Hand-labelled 95¢ tags (bench/prices.labels.json), the two largest.
    const reads = await readTags(raw, [
      { x1: 262, y1: 1072, x2: 460, y2: 1178 },
      { x1: 641, y1: 1091, x2: 812, y2: 1190 },
    ]);
    expect(reads.map(price)).toEqual([95, 95]);
  });

  it('reads the small raised ¢ that blur joins to the 5 on the smaller tags of the same shelf', async () => {
    const { data, info } = await sharp(path.join(DATA, 'shelf-photos', 'test_1234.jpg')).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const raw = { data, width: info.width, height: info.height, channels: info.channels };
    // Hand-labelled (bench/prices.labels.json): the OCR reads "95" (once "95'"); the ¢, 5 to 8 px,
    // is one blob with the 5's top, sticking out right of the 5's body.
    const reads = await readTags(raw, [
      { x1: 1199, y1: 1115, x2: 1335, y2: 1201 },
      { x1: 1476, y1: 1128, x2: 1599, y2: 1210 },
      { x1: 1657, y1: 1133, x2: 1775, y2: 1211 },
      { x1: 1938, y1: 1137, x2: 2046, y2: 1215 },
      { x1: 2167, y1: 1146, x2: 2263, y2: 1215 },
      { x1: 2343, y1: 1150, x2: 2431, y2: 1219 },
    ]);
    expect(reads.map(price), reads.map((r) => r.text).join(' | ')).toEqual([95, 95, 95, 95, 95, 95]);
  });

  it('takes no ¢ from a bare number, or from a mark or digit a pixel or two past the digit on small print', async () => {
    // Blurred and JPEG-compressed as in a photo, at sizes where a small mark blurs into the 5: none is
    // a price (a lone raised 9 or a ® is no cents sign, and a bare 95 may be 95¢ or 95.00).
    const texts = ['95', '93', '98', '90', '95®', '95²'];
    const reads = [];
    for (const scale of [0.35, 0.28]) {
      for (const text of texts) {
        const [digits, mark] = [text.slice(0, 2), text.slice(2)];
        const drawn = svg(150, 80, `<rect width="150" height="80" fill="#fff6a0"/><text x="30" y="62" ${FONT} font-size="52" font-weight="bold">${digits}</text><text x="91" y="34" ${FONT} font-size="22" font-weight="bold">${mark}</text>`);
        const jpeg = await sharp(Buffer.from(drawn)).resize(Math.round(150 * scale)).blur(0.8).jpeg({ quality: 80 }).toBuffer();
        const { data, info } = await sharp(jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
        const [tag] = await readTags({ data, width: info.width, height: info.height, channels: info.channels }, [{ x1: 0, y1: 0, x2: info.width, y2: info.height }], { ean: false });
        reads.push(`${text} ${scale}: ${price(tag)} (${tag.text})`);
      }
    }
    expect(reads.filter((r) => !/: unreadable /.test(r))).toEqual([]);
  });

  it('takes no ¢ from the faint raised cents of a 3⁹⁷ peg tag, blurred into one blob of a few px', async () => {
    const { data, info } = await sharp(path.join(DATA, 'shelf-photos', 'test_636.jpg')).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const raw = { data, width: info.width, height: info.height, channels: info.channels };
    // The hand-labelled tag (bench/prices.labels.json) and the OCR's line as it read it from a crop a
    // few px off the usual one: "3", its raised 97 a 3 x 4 px blob beside it. It was taken for a ¢ (0.03).
    const tag = { x1: 825, y1: 1555, x2: 912, y2: 1655 };
    const line = { text: '3', score: 0.99, box: { x1: 839.8, y1: 1588.1, x2: 866.6, y2: 1612.8 }, height: 20.35, chars: [{ x: 846.9, y: 1601.8 }] };
    const pixels = { image: raw, cv: await loadOpenCv() };
    const [read] = centsSign(joinSmallCents([line], pixels), pixels, tag);
    expect(read.text).toBe('3');
    expect(readTag([read]).status).toBe('unreadable');
  });

  it('finds a point too small for the recogniser in the pixels (2.42 read as "242"), and none where none is printed', async () => {
    const { data, info } = await sharp(path.join(DATA, 'shelf-photos', 'test_1837.jpg')).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const raw = { data, width: info.width, height: info.height, channels: info.channels };
    // Hand-labelled (bench/prices.labels.json): the recogniser reads "242" and its steps put the
    // digits evenly apart, so only the point's own pixels tell.
    const [tag] = await readTags(raw, [{ x1: 1019, y1: 1012, x2: 1097, y2: 1062 }]);
    expect(price(tag), tag.text).toBe(242);
    // The same size of print without a point (whole units, or the point lost) stays unreadable.
    const plain = await render(svg(90, 50, `<text x="8" y="38" ${FONT} font-size="30" font-weight="bold">1299</text>`));
    const [whole] = await readTags(plain, [{ x1: 0, y1: 0, x2: 90, y2: 50 }], { ean: false });
    expect(whole.text).toBe('1299');
    expect(whole.reading.status).toBe('unreadable');
  });
});

describe('putting a tag’s lines together', () => {
  const line = (text: string, x1: number, height: number) => ({ text, score: 0.95, box: { x1, y1: 10, x2: x1 + text.length * height * 0.6, y2: 10 + height }, height, chars: [] });

  it('reads a cents sign the OCR took for a "t" ("83t", the price line alone) as cents, and nothing else so', () => {
    // PP-OCR's dictionary has no "¢": a ¢ printed as large as the digits comes back as "t".
    expect(readTag(joinSmallCents([line('83t', 20, 40)]))).toMatchObject({ status: 'read', price: { hundredths: 83 } });
    expect(readTag(joinSmallCents([line('Product 3', 5, 10), line('7t', 20, 40)]))).toMatchObject({ status: 'read', price: { hundredths: 7 } });
    // Not a lone one- or two-digit number before it: left as read (a pack size, a word).
    expect(joinSmallCents([line('125t', 20, 40)])[0].text).toBe('125t');
    expect(joinSmallCents([line('83 tea', 20, 40)])[0].text).toBe('83 tea');
    expect(readTag(joinSmallCents([line('125t', 20, 40)])).status).toBe('unreadable');
  });
});
