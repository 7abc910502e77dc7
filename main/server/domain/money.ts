// Money as the API writes it ("1.99", a decimal string) and as it is stored and compared (hundredths,
// an integer): never a float, so 0.1 + 0.2 never reaches a price comparison.

import { MONEY_PATTERN } from '../schemas/prices.js';

const MONEY = new RegExp(MONEY_PATTERN);

/** "1.99" -> 199; null when the text is not such an amount (negative, a comma, three decimals...). */
export function centsOf(text: string): number | null {
  if (!MONEY.test(text)) return null;
  const [units, fraction = ''] = text.split('.');
  return Number(units) * 100 + Number(fraction.padEnd(2, '0'));
}

/** 199 -> "1.99", 5 -> "0.05", 500 -> "5.00". */
export function moneyText(cents: number): string {
  const whole = Math.floor(cents / 100);
  return `${whole}.${String(cents - whole * 100).padStart(2, '0')}`;
}
