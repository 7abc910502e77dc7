// evaluate.py's scoring, on detections whose right answers are worked out by hand: every AP, recall and
// precision figure in the model card and the bench comes from these functions.
import { describe, expect, it } from 'vitest';
import { runPython } from './python.js';

type Box = number[];
type Case = { dets: Box[][]; gts: Box[][]; cut?: number };
type Scores = { AP50: number; AP75: number; AP: number; recall: number; precision: number; count_error: number };

const SCORE = `
import json, sys
import numpy as np
import evaluate as ev
out = {}
for name, c in json.loads(sys.argv[1]).items():
    dets = [np.array(d, np.float64).reshape(-1, 5) for d in c['dets']]
    gts = [np.array(g, np.float64).reshape(-1, 4) for g in c['gts']]
    aps = ev.ap_by_iou(dets, gts)
    out[name] = {'AP50': aps[0.5], 'AP75': aps[0.75], 'AP': float(np.mean(list(aps.values()))),
                 **ev.region_scores(dets, gts, c.get('cut', 0.3))}
print(json.dumps(out))
`;

function score(cases: Record<string, Case>): Record<string, Scores> {
  return JSON.parse(runPython(['-c', SCORE, JSON.stringify(cases)]));
}

const A = [0, 0, 100, 100];
const B = [200, 0, 300, 100];
const hit = (b: Box, s: number) => [...b, s];

describe('evaluate.py scoring', () => {
  const r = score({
    perfect: { dets: [[hit(A, 0.9), hit(B, 0.8)]], gts: [[A, B]] },
    half: { dets: [[hit(A, 0.9)]], gts: [[A, B]] },
    falseFirst: { dets: [[[500, 500, 600, 600, 0.9], hit(A, 0.8)]], gts: [[A]] },
    falseLast: { dets: [[hit(A, 0.9), [500, 500, 600, 600, 0.8]]], gts: [[A]] },
    duplicate: { dets: [[hit(A, 0.9), [2, 2, 102, 102, 0.8]]], gts: [[A]] },
    // IoU 100x100 / 100x160 = 0.625: a hit at IoU 0.50, 0.55 and 0.60 only
    loose: { dets: [[[0, 0, 100, 160, 0.9]]], gts: [[A]] },
    underCut: { dets: [[hit(A, 0.2)]], gts: [[A]], cut: 0.3 },
    // pooled over images: one photo found, one missed entirely
    pooled: { dets: [[hit(A, 0.9)], []], gts: [[A], [B]] },
  });

  it('a perfect detector scores 1 everywhere', () => {
    expect(r.perfect).toEqual({ AP50: 1, AP75: 1, AP: 1, recall: 1, precision: 1, count_error: 0 });
  });

  it('half the products found: AP50 over the 101 recall points, recall 0.5', () => {
    expect(r.half.AP50).toBeCloseTo(51 / 101, 10);
    expect(r.half).toMatchObject({ recall: 0.5, precision: 1, count_error: 1 });
    expect(r.pooled.AP50).toBeCloseTo(51 / 101, 10);
    expect(r.pooled).toMatchObject({ recall: 0.5, precision: 1, count_error: 0.5 });
  });

  it('a false box costs AP only when it outranks the true one', () => {
    expect(r.falseFirst.AP50).toBeCloseTo(0.5, 10);
    expect(r.falseLast.AP50).toBe(1);
    for (const c of [r.falseFirst, r.falseLast]) expect(c).toMatchObject({ recall: 1, precision: 0.5, count_error: 1 });
  });

  it('a second box on a matched product is a false positive', () => {
    expect(r.duplicate).toMatchObject({ AP50: 1, recall: 1, precision: 0.5, count_error: 1 });
  });

  it("COCO's AP averages the ten IoU thresholds", () => {
    expect(r.loose).toMatchObject({ AP50: 1, AP75: 0, recall: 1 });
    expect(r.loose.AP).toBeCloseTo(0.3, 10);
  });

  it('recall and precision count only boxes at or above the cut; AP ranks them all', () => {
    expect(r.underCut).toMatchObject({ AP50: 1, recall: 0, precision: 0, count_error: 1 });
  });
});

describe("evaluate.py's breakdown of missed products", () => {
  const MISSES = `
import json, sys
import numpy as np
import evaluate as ev
c = json.loads(sys.argv[1])
print(json.dumps(ev.misses([np.array(d, np.float64).reshape(-1, 5) for d in c['dets']],
                           [np.array(g, np.float64).reshape(-1, 4) for g in c['gts']])))
`;
  const C = [0, 100, 100, 200]; // stacked under A
  const D = [400, 0, 500, 100];
  const E = [600, 0, 700, 100];
  const F = [800, 0, 900, 100];
  const G = [1000, 0, 1100, 100];
  const r = JSON.parse(
    runPython([
      '-c',
      MISSES,
      JSON.stringify({
        dets: [
          [
            [0, 0, 100, 190, 0.9], // A's box (IoU 0.53) reaching over C (IoU 0.45, 1.9 times its area)
            [200, 0, 245, 100, 0.8], // B cut short: IoU 0.45, 0.45 of its area
            [440, 0, 540, 100, 0.7], // D shifted: IoU 0.43, same area
            [670, 0, 770, 100, 0.6], // E barely touched: IoU 0.18
            [...G, 0.01], // G exactly, but under AP's score floor
          ],
          [[...A, 0.9]],
        ],
        gts: [[A, C, B, D, E, F, G], [A]],
      }),
    ]),
  );

  it('reach is the share of products some box above the floor matches at IoU 0.5', () => {
    expect(r.reach).toBeCloseTo(2 / 8, 10);
  });

  it('each missed product goes under its best overlap, near misses under their box size', () => {
    expect(r).toMatchObject({ unseen: 2, poor: 1, near: 3, larger: 1, smaller: 1, offset: 1 });
  });
});
