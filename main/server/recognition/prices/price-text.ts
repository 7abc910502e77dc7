// What a price tag says, from the lines of text read on it (OCR): the shelf price, a promotion
// ("2 for 5", "3 for 2"), and the unit price (per kg, per litre), told apart. A tag is read only when
// its price is unambiguous: anything else is "unreadable" with the reason, never a guessed price.
//
// The shelf price is the money amount on the tallest line that is neither a unit price nor a
// promotion (tags print it largest). Amounts are kept in hundredths, so no float rounding reaches a
// comparison with the price list.

/** One line of text read on a tag, with its height in pixels (the font size, near enough). */
export interface TagLine {
  text: string;
  height: number;
}

export interface Money {
  /** Hundredths of the currency's unit: 1.99 is 199. */
  hundredths: number;
  /** ISO 4217 code when the tag prints a sign or code, else null. */
  currency: string | null;
}

export type Promotion =
  /** N items for a total price: "2 for 5.00", "2/$5". */
  | { kind: 'bundle'; quantity: number; total: Money }
  /** Buy N, pay for M: "3 for 2". */
  | { kind: 'multibuy'; buy: number; pay: number };

export type PriceUnit = 'kg' | '100g' | 'g' | 'l' | '100ml' | 'ml' | 'piece';

export interface UnitPrice {
  price: Money;
  per: PriceUnit;
}

export type TagReading =
  | { status: 'read'; price: Money; promotion: Promotion | null; unitPrice: UnitPrice | null }
  | { status: 'unreadable'; reason: string; promotion: Promotion | null; unitPrice: UnitPrice | null };

const CURRENCY_SIGNS: Array<[RegExp, string]> = [
  [/€|\bEUR\b/i, 'EUR'],
  [/£|\bGBP\b/i, 'GBP'],
  [/\$|\bUSD\b/i, 'USD'],
  [/¥|\bJPY\b|\bCNY\b|\bRMB\b|元/i, 'CNY'],
  [/₽|\bRUB\b|\bруб\.?|\bр\./i, 'RUB'],
  [/zł|\bPLN\b/i, 'PLN'],
  [/Kč|\bCZK\b/i, 'CZK'],
  [/\bCHF\b|\bFr\./, 'CHF'],
];

/** Superscript digits are the cents of prices like 1⁹⁹; NFKC would fold them into the euros. */
const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';

const UNIT_WORDS: Array<[RegExp, PriceUnit]> = [
  [/100\s?g\b/i, '100g'],
  [/100\s?ml\b/i, '100ml'],
  [/\bkg\b|\bkilo/i, 'kg'],
  [/\bml\b/i, 'ml'],
  [/\bg\b|\bgr\b/i, 'g'],
  [/\bl\b|\blt?r?\b|\blitre|\bliter/i, 'l'],
  [/\bpc\b|\bpcs\b|\bpiece|\bstk\b|\bst\.|\bszt\b|\bea\b/i, 'piece'],
];

/** "per", "je", "pro", "za", "/", "1 kg =": what makes an amount a unit price. */
const UNIT_PRICE_MARK = /(\/\s*(100\s?)?(kg|g|gr|l|ltr|ml|pc|pcs|stk|szt|ea)\b)|\b(per|je|pro|za|pour)\s+(1\s*)?(100\s?)?(kg|g|gr|l|ltr|litre|liter|ml|pc|piece|stk|szt)\b|\b1\s*(kg|l)\s*=|\b100\s?(g|ml)\s*=/i;

const PROMO_BUNDLE = /\b(\d{1,2})\s*(?:for|für|za|pour|per|x|\/)\s*([€£$¥₽]?\s*\d+(?:[.,]\d{2})?\s*(?:€|£|\$|zł|kč|eur|usd|gbp|pln|czk)?)/i;

function currencyOf(text: string): string | null {
  for (const [sign, code] of CURRENCY_SIGNS) if (sign.test(text)) return code;
  return null;
}

/** Words on a tag that are numbers but not prices: dates, EANs, percentages, sizes, times. */
function stripNonPrices(text: string): string {
  return text
    .replace(/\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b/g, ' ') // dates
    .replace(/\b\d{8,14}\b/g, ' ') // EAN-8 / EAN-13 / GTIN-14
    .replace(/[-–]?\s?\d+(?:[.,]\d+)?\s?%/g, ' ') // discounts
    .replace(/\b\d+(?:[.,]\d+)?\s?(?:x\s?\d+(?:[.,]\d+)?\s?)?(?:kg|g|gr|ml|cl|l|ltr|oz|lb|pcs|pc|st|stk|szt)\b(?!\s*=)/gi, ' ') // pack sizes
    .replace(/\b\d{1,2}:\d{2}\b/g, ' '); // times
}

/**
 * The money amounts in one line of text. A separator followed by exactly two digits is the decimal
 * mark ("1,99", "1.234,56", "1,234.56"); "5,-" is whole units; "1 99" and "1⁹⁹" are superscript
 * cents. A bare integer is an amount only beside a currency, or where the caller says whole units
 * are meant (the total of "2 for 5"): a shelf price read as "199" may be 1.99 with the point lost,
 * and "95" or "3" may be 95¢ or 3⁹⁷ with the small print unread (seen on real tags): not guessed.
 */
export function amountsIn(rawText: string, options: { bareIntegers?: boolean } = {}): Array<{ hundredths: number } | { ambiguous: string }> {
  let text = rawText.replace(new RegExp(`(\\d)([${SUPERSCRIPT}]{2})(?![${SUPERSCRIPT}])`, 'g'), (_m, d: string, sup: string) => {
    const cents = [...sup].map((c) => SUPERSCRIPT.indexOf(c)).join('');
    return `${d}.${cents}`;
  });
  text = text.normalize('NFKC');
  // "95¢", "95c": cents alone, the way US tags print prices under a dollar. (The OCR reads a small ¢
  // as "°" at times, but also raised cents "27⁹⁰" as "27°": a "°" is left unread.)
  text = text.replace(/(?<![\d.,])(\d{1,2})\s?[¢c](?![a-z])/gi, (_m, c: string) => `0.${c.padStart(2, '0')}`);
  const hasCurrency = currencyOf(text) !== null;
  text = stripNonPrices(text);
  const out: Array<{ hundredths: number } | { ambiguous: string }> = [];
  // "6.8": a decimal mark with one digit after it is a price half read (the OCR lost a digit).
  text = text.replace(/(?<![\d.,])\d+[.,]\d(?![\d])/g, (m) => {
    out.push({ ambiguous: m });
    return ' ';
  });
  // Thousands groups (space, dot, comma, apostrophe) then an optional decimal part.
  const number = /(?<![\d.,])(\d{1,3}(?:[ .,'’]\d{3})+|\d+)(?:([.,])(\d{2})(?!\d)|([.,])[-–]{1,2}|\s(\d{2})(?![\d.,]))?(?![\d])/g;
  for (const m of text.matchAll(number)) {
    const whole = Number(m[1].replace(/[ .,'’]/g, ''));
    if (!Number.isSafeInteger(whole)) continue;
    if (m[3] !== undefined) out.push({ hundredths: whole * 100 + Number(m[3]) });
    else if (m[4] !== undefined) out.push({ hundredths: whole * 100 });
    else if (m[5] !== undefined && m[1].length <= 3) out.push({ hundredths: whole * 100 + Number(m[5]) });
    else if (hasCurrency || (options.bareIntegers && m[1].length <= 2)) out.push({ hundredths: whole * 100 });
    else out.push({ ambiguous: m[0] });
  }
  return out;
}

function unitIn(text: string): PriceUnit | null {
  for (const [word, unit] of UNIT_WORDS) if (word.test(text)) return unit;
  return null;
}

/** "1 kg = 1,98 €" (unit, then money) or "1,98 €/kg", "6,98 zł za 1 l" (money, then unit). */
function unitPriceIn(rawText: string, tagCurrency: string | null): UnitPrice | null {
  const text = rawText.normalize('NFKC');
  const equals = text.indexOf('=');
  let moneyPart: string;
  let unitPart: string;
  if (equals >= 0) {
    unitPart = text.slice(0, equals);
    moneyPart = text.slice(equals + 1);
  } else {
    const mark = /\/|\b(?:per|je|pro|za|pour)\b/i.exec(text);
    if (!mark) return null;
    unitPart = text.slice(mark.index + mark[0].length);
    moneyPart = text.slice(0, mark.index) + ' ' + unitPart.replace(/^\s*(1\s*)?(100\s?)?[a-zA-Z]+\.?:?/, '');
  }
  const per = unitIn(unitPart);
  const amount = amountsIn(moneyPart, { bareIntegers: true }).find((a) => 'hundredths' in a);
  if (!per || !amount || !('hundredths' in amount)) return null;
  return { price: { hundredths: amount.hundredths, currency: currencyOf(text) ?? tagCurrency }, per };
}

function promotionIn(text: string): Promotion | null {
  const m = PROMO_BUNDLE.exec(text.normalize('NFKC'));
  if (!m) return null;
  const quantity = Number(m[1]);
  const amounts = amountsIn(m[2], { bareIntegers: true });
  const amount = amounts[0];
  if (quantity < 2 || !amount || !('hundredths' in amount)) return null;
  const plainInteger = /^\s*\d+\s*$/.test(m[2]);
  // "3 for 2": a smaller bare count is what one pays for, not a price.
  if (plainInteger && amount.hundredths / 100 < quantity) return { kind: 'multibuy', buy: quantity, pay: amount.hundredths / 100 };
  return { kind: 'bundle', quantity, total: { hundredths: amount.hundredths, currency: currencyOf(m[2]) ?? currencyOf(text) } };
}

/** Reads a tag from its lines of text. */
export function readTag(lines: readonly TagLine[]): TagReading {
  const tagCurrency = currencyOf(lines.map((l) => l.text).join(' '));
  let promotion: Promotion | null = null;
  let unitPrice: UnitPrice | null = null;
  const candidates: Array<{ line: TagLine; amounts: ReturnType<typeof amountsIn> }> = [];
  for (const line of lines) {
    const text = line.text.trim();
    if (!text) continue;
    if (UNIT_PRICE_MARK.test(text.normalize('NFKC'))) {
      unitPrice ??= unitPriceIn(text, tagCurrency);
      continue;
    }
    const promo = promotionIn(text);
    if (promo) {
      promotion ??= promo;
      continue;
    }
    const amounts = amountsIn(text);
    if (amounts.length > 0) candidates.push({ line, amounts });
  }
  if (candidates.length === 0) return { status: 'unreadable', reason: 'no price in the text read', promotion, unitPrice };
  const tallest = Math.max(...candidates.map((c) => c.line.height));
  // Lines within 15 % of the tallest are the price's own (OCR heights wobble); all must agree.
  const top = candidates.filter((c) => c.line.height >= tallest * 0.85);
  const values = new Set<number>();
  for (const c of top) {
    for (const a of c.amounts) {
      if ('ambiguous' in a) return { status: 'unreadable', reason: `"${a.ambiguous}" has no decimal mark`, promotion, unitPrice };
      values.add(a.hundredths);
    }
  }
  if (values.size !== 1) return { status: 'unreadable', reason: `${values.size} different amounts printed largest`, promotion, unitPrice };
  const hundredths = [...values][0];
  if (hundredths <= 0) return { status: 'unreadable', reason: 'a price of zero', promotion, unitPrice };
  const currency = currencyOf(top.map((c) => c.line.text).join(' ')) ?? tagCurrency;
  return { status: 'read', price: { hundredths, currency }, promotion, unitPrice };
}
