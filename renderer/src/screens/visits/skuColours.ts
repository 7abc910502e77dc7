// A colour per SKU so the same product has the same box colour on every photo of a visit and in its
// tables. The SKUs of a visit take distinct colours from a fixed palette (hashed hues can land close
// together); beyond the palette a hashed hue is used.

export const UNKNOWN_COLOUR = '#d7263d';

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

export function colourForSku(sku: string | null): string {
  if (sku === null) return UNKNOWN_COLOUR;
  const hue = (hash(sku) * 137.508) % 360;
  // Hues near the "unknown" red are shifted away so unknowns stay distinct.
  const shifted = hue < 20 || hue > 340 ? (hue + 40) % 360 : hue;
  return `hsl(${shifted.toFixed(0)} 75% 42%)`;
}

/** A box given by its centre (as REALOGRAM has it) as the top-left corner an SVG rect needs. */
export function boxRect(a: { x: number; y: number; w: number; h: number }) {
  return { x: a.x - a.w / 2, y: a.y - a.h / 2, width: a.w, height: a.h };
}

/** Well-separated colours, none close to the unknown-product red. */
export const PALETTE = [
  '#1f77b4',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#17becf',
  '#8c564b',
  '#e377c2',
  '#bcbd22',
  '#393b79',
  '#637939',
  '#7f7f7f',
  '#0b6e4f',
];

export type SkuColours = (sku: string | null) => string;

/** Colours for the SKUs of one screen, the same whatever order they are met in. */
export function skuColours(skus: Iterable<string | null>): SkuColours {
  const ids = [...new Set([...skus].filter((s): s is string => s !== null))].sort();
  const assigned = new Map(ids.slice(0, PALETTE.length).map((id, i) => [id, PALETTE[i]]));
  return (sku) => (sku === null ? UNKNOWN_COLOUR : (assigned.get(sku) ?? colourForSku(sku)));
}
