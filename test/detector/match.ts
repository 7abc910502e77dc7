// Test helper: greedy one-to-one matching of detections to known boxes at an IoU threshold.
import type { Box } from '../../main/server/recognition/detector/index.js';

export type Truth = [number, number, number, number];

export function iou(a: Truth, b: Box): number {
  const iw = Math.min(a[2], b.x2) - Math.max(a[0], b.x1);
  const ih = Math.min(a[3], b.y2) - Math.max(a[1], b.y1);
  if (iw <= 0 || ih <= 0) return 0;
  const inter = iw * ih;
  return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter);
}

export function recallPrecision(truth: Truth[], boxes: Box[], threshold = 0.5): { recall: number; precision: number } {
  const used = new Set<number>();
  let tp = 0;
  for (const b of [...boxes].sort((p, q) => q.score - p.score)) {
    let best = -1;
    let bestIou = threshold;
    truth.forEach((t, j) => {
      if (used.has(j)) return;
      const v = iou(t, b);
      if (v >= bestIou) {
        bestIou = v;
        best = j;
      }
    });
    if (best >= 0) {
      used.add(best);
      tp++;
    }
  }
  return { recall: tp / Math.max(1, truth.length), precision: tp / Math.max(1, boxes.length) };
}
