// Types of bench/box-overlap.mjs for the tests that score boxes with it.
export interface Corners {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}
export function iou(a: Corners, b: Corners): number;
export function greedyMatches(truth: readonly Corners[], found: ReadonlyArray<Corners & { score: number }>, threshold: number): number;
