// A stable colour per SKU so the same product has the same box colour on every photo and screen.
// Golden-angle hues keep neighbouring ids apart.

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
