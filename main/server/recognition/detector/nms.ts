// Greedy non-maximum suppression. Peak extraction already gives one box per centre; this removes the rare
// second peak inside one product (a long bottle can have two local maxima) without touching neighbours,
// which on a dense shelf barely overlap.
import type { Box } from './decode.js';

/** A box by its corners, scored or not. */
export type Corners = Pick<Box, 'x1' | 'y1' | 'x2' | 'y2'>;

/** Intersection over union of two boxes. */
export function iou(a: Corners, b: Corners): number {
  const iw = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const ih = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  if (iw <= 0 || ih <= 0) return 0;
  const inter = iw * ih;
  return inter / ((a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter);
}

export function nms<T extends Box>(boxes: readonly T[], iouThreshold: number, maxBoxes = Infinity): T[] {
  const sorted = [...boxes].sort((a, b) => b.score - a.score);
  const kept: T[] = [];
  for (const b of sorted) {
    if (kept.length >= maxBoxes) break;
    if (kept.every((k) => iou(k, b) <= iouThreshold)) kept.push(b);
  }
  return kept;
}
