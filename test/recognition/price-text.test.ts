// Reading a price tag's text (recognition/prices/price-text.ts): the shelf price, promotions and unit
// prices told apart, and text that is not a clear price left unreadable rather than guessed.
import { describe, expect, it } from 'vitest';
import { amountsIn, readTag, type TagLine } from '../../main/server/recognition/prices/price-text.js';

const tag = (...lines: Array<[string, number]>): TagLine[] => lines.map(([text, height]) => ({ text, height }));
const price = (lines: TagLine[]) => {
  const r = readTag(lines);
  return r.status === 'read' ? r.price : r.reason;
};

describe('amounts in a line', () => {
  it.each([
    ['1,99', 199],
    ['1.99', 199],
    ['12,50 €', 1250],
    ['€ 0.89', 89],
    ['1.234,56', 123456],
    ['1,234.56', 123456],
    ["1'234.50 CHF", 123450],
    ['5,-', 500],
    ['5.–', 500],
    ['1 99', 199],
    ['1⁹⁹', 199],
    ['$3', 300],
    ['120 Kč', 12000],
  ])('%s is %i hundredths', (text, hundredths) => {
    expect(amountsIn(text)).toEqual([{ hundredths }]);
  });

  it('leaves a bare number without currency ambiguous: 95 may be 95¢ and 3 may be 3⁹⁷ with the small print unread', () => {
    expect(amountsIn('95')).toEqual([{ ambiguous: '95' }]);
    expect(amountsIn('3')).toEqual([{ ambiguous: '3' }]);
    expect(amountsIn('9', { bareIntegers: true })).toEqual([{ hundredths: 900 }]);
  });

  it('reads cents printed with a cent sign, but not a "°" (the OCR reads raised cents "27⁹⁰" as "27°" too)', () => {
    expect(amountsIn('95¢')).toEqual([{ hundredths: 95 }]);
    expect(amountsIn('95c')).toEqual([{ hundredths: 95 }]);
    expect(amountsIn('27°')).toEqual([{ ambiguous: '27' }]);
  });

  it('leaves a decimal mark with one digit after it (a digit lost) ambiguous', () => {
    expect(amountsIn('6.8')).toEqual([{ ambiguous: '6.8' }]);
  });

  it('leaves a bare three-digit number without currency ambiguous: 199 may be 1.99 with small cents', () => {
    expect(amountsIn('199')).toEqual([{ ambiguous: '199' }]);
  });

  it('skips what is not a price: dates, EANs, percentages, pack sizes', () => {
    expect(amountsIn('12.03.2026')).toEqual([]);
    expect(amountsIn('4006381333931')).toEqual([]);
    expect(amountsIn('-20%')).toEqual([]);
    expect(amountsIn('500 g')).toEqual([]);
    expect(amountsIn('1,5 l')).toEqual([]);
    expect(amountsIn('6 x 330 ml')).toEqual([]);
  });
});

describe('a tag', () => {
  it('takes the amount printed largest as the shelf price, with the tag’s currency', () => {
    expect(price(tag(['Cola Zero 1,5 l', 14], ['1,29 €', 48], ['4006381333931', 10]))).toEqual({ hundredths: 129, currency: 'EUR' });
    expect(price(tag(['£2.50', 40], ['Was £3.00', 16]))).toEqual({ hundredths: 250, currency: 'GBP' });
  });

  it('tells the unit price apart from the shelf price', () => {
    const r = readTag(tag(['0,99', 50], ['1 kg = 1,98 €', 12], ['500 g', 12]));
    expect(r).toMatchObject({ status: 'read', price: { hundredths: 99, currency: 'EUR' }, unitPrice: { price: { hundredths: 198 }, per: 'kg' } });
    expect(readTag(tag(['2.49', 44], ['$4.98/lb', 11]))).toMatchObject({ price: { hundredths: 249 } });
    expect(readTag(tag(['3,49 zł', 44], ['cena za 1 l: 6,98 zł', 11]))).toMatchObject({
      price: { hundredths: 349, currency: 'PLN' },
      unitPrice: { price: { hundredths: 698, currency: 'PLN' }, per: 'l' },
    });
    expect(readTag(tag(['1,79 €', 44], ['1,19 €/100 g', 11]))).toMatchObject({ unitPrice: { price: { hundredths: 119 }, per: '100g' } });
  });

  it('reads promotions: a bundle price and a multibuy', () => {
    expect(readTag(tag(['2 for $5', 30], ['$2.99', 40]))).toMatchObject({
      status: 'read',
      price: { hundredths: 299, currency: 'USD' },
      promotion: { kind: 'bundle', quantity: 2, total: { hundredths: 500, currency: 'USD' } },
    });
    expect(readTag(tag(['3 for 2', 20], ['1.00', 40]))).toMatchObject({ promotion: { kind: 'multibuy', buy: 3, pay: 2 }, price: { hundredths: 100 } });
  });

  it('is unreadable, never guessed, when the text does not say one clear price', () => {
    expect(readTag(tag(['Coca-Cola', 20]))).toMatchObject({ status: 'unreadable', reason: 'no price in the text read' });
    expect(readTag(tag(['199', 40]))).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/no decimal mark/) });
    expect(readTag(tag(['1,99', 40], ['2,49', 39]))).toMatchObject({ status: 'unreadable', reason: '2 different amounts printed largest' });
    expect(readTag(tag(['0,00', 40]))).toMatchObject({ status: 'unreadable' });
    expect(readTag([])).toMatchObject({ status: 'unreadable' });
    // A unit price alone is not the shelf price.
    expect(readTag(tag(['1 kg = 1,98 €', 30]))).toMatchObject({ status: 'unreadable', unitPrice: { per: 'kg' } });
  });
});
