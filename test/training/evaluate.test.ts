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
