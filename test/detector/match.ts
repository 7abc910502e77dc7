// Test helper: recall and precision of detections against known boxes, by the benches' greedy
// one-to-one matching (bench/box-overlap.mjs), so a test and a bench score boxes the same way.
import type { Box } from '../../main/server/recognition/detector/index.js';
import { greedyMatches, iou as cornersIou } from '../../bench/box-overlap.mjs';

export type Truth = [number, number, number, number];

const corners = ([x1, y1, x2, y2]: Truth) => ({ x1, y1, x2, y2 });

export function iou(a: Truth, b: Box): number {
  return cornersIou(corners(a), b);
}

export function recallPrecision(truth: Truth[], boxes: Box[], threshold = 0.5): { recall: number; precision: number } {
  const tp = greedyMatches(truth.map(corners), boxes, threshold);
  return { recall: tp / Math.max(1, truth.length), precision: tp / Math.max(1, boxes.length) };
}
