// Overlap of boxes given by corners ({x1, y1, x2, y2}), for the benches and tests that score found boxes
// against labelled ones.

/** Intersection over union of two boxes. */
export function iou(a, b) {
  const w = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const h = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / ((a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter);
}

/**
 * How many found boxes match labelled ones, one to one: the best-scoring found box first, each taking
 * the free labelled box it overlaps most, at an IoU of `threshold` or more.
 */
export function greedyMatches(truth, found, threshold) {
  const used = new Set();
  let matched = 0;
  for (const b of [...found].sort((p, q) => q.score - p.score)) {
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
      matched++;
    }
  }
  return matched;
}
