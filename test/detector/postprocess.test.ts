// Decoding and NMS on hand-made head outputs: no model, so a failure here points at the TS code alone.
import { describe, expect, it } from 'vitest';

import { decodePeaks, type HeadOutputs } from '../../main/server/recognition/detector/decode.js';
import { iou, nms } from '../../main/server/recognition/detector/nms.js';
import { averageWithMirror, mirrorTensor } from '../../main/server/recognition/detector/test-time.js';

function heads(w: number, h: number): HeadOutputs {
  return {
    heatmap: new Float32Array(w * h),
    size: new Float32Array(2 * w * h),
    offset: new Float32Array(2 * w * h),
    width: w,
    height: h,
    stride: 4,
  };
}

function put(o: HeadOutputs, x: number, y: number, score: number, bw: number, bh: number, ox = 0, oy = 0) {
  const i = y * o.width + x;
  const plane = o.width * o.height;
  o.heatmap[i] = score;
  o.size[i] = bw;
  o.size[plane + i] = bh;
  o.offset[i] = ox;
  o.offset[plane + i] = oy;
}

describe('decodePeaks', () => {
  it('turns each local maximum above the threshold into a box at stride scale', () => {
    const o = heads(20, 10);
    put(o, 5, 4, 0.9, 16, 40, 0.5, 0.25);
    put(o, 6, 4, 0.5, 16, 40); // neighbour of the first peak, lower: not a peak
    put(o, 15, 2, 0.6, 8, 12);
    put(o, 10, 8, 0.2, 8, 12); // below threshold
    const boxes = decodePeaks(o, 0.3).sort((a, b) => b.score - a.score);
    expect(boxes).toHaveLength(2);
    // centre (5.5, 4.25) cells * 4 = (22, 17) px, size 16 x 40
    expect(boxes[0].x1).toBeCloseTo(14);
    expect(boxes[0].x2).toBeCloseTo(30);
    expect(boxes[0].y1).toBeCloseTo(-3);
    expect(boxes[0].y2).toBeCloseTo(37);
    expect(boxes[0].score).toBeCloseTo(0.9);
    expect(boxes[1].x1).toBeCloseTo(15 * 4 - 4);
    expect(boxes[1].y2).toBeCloseTo(2 * 4 + 6);
  });

  it('gives one box for a plateau of equal scores, and handles peaks on the border', () => {
    const o = heads(8, 8);
    put(o, 3, 3, 0.7, 10, 10);
    put(o, 4, 3, 0.7, 10, 10);
    put(o, 0, 0, 0.8, 4, 4);
    put(o, 7, 7, 0.8, 4, 4);
    const boxes = decodePeaks(o, 0.3);
    expect(boxes).toHaveLength(3);
  });
});

describe('nms', () => {
  const b = (x1: number, y1: number, x2: number, y2: number, score: number) => ({ x1, y1, x2, y2, score });

  it('computes IoU', () => {
    expect(iou(b(0, 0, 10, 10, 1), b(5, 0, 15, 10, 1))).toBeCloseTo(50 / 150);
    expect(iou(b(0, 0, 10, 10, 1), b(10, 0, 20, 10, 1))).toBe(0);
  });

  it('drops a weaker box on the same product but keeps touching neighbours', () => {
    const kept = nms([b(0, 0, 10, 30, 0.5), b(0, 1, 10, 31, 0.9), b(10, 0, 20, 30, 0.8), b(20.5, 0, 30, 30, 0.7)], 0.6);
    expect(kept.map((k) => k.score)).toEqual([0.9, 0.8, 0.7]);
  });

  it('caps the number of boxes, best first', () => {
    const many = Array.from({ length: 10 }, (_, i) => b(i * 10, 0, i * 10 + 9, 9, i / 10));
    expect(nms(many, 0.5, 3).map((k) => k.score)).toEqual([0.9, 0.8, 0.7]);
  });
});

describe('mirror test', () => {
  it('mirrors every row of every channel of the input tensor', () => {
    // 2 channels x 2 rows x 3 columns
    const t = Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect([...mirrorTensor(t, 3)]).toEqual([3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10]);
  });

  it('reads the mirror image back in the original frame: one product gives one unchanged box', () => {
    const a = heads(10, 6);
    const m = heads(10, 6);
    // A product centred at x = (3 + 0.25) cells: in the mirror it is at 10 - 3.25 = 6.75 = cell 6 + 0.75.
    put(a, 3, 2, 0.8, 12, 20, 0.25, 0.5);
    put(m, 6, 2, 0.6, 16, 20, 0.75, 0.5);
    const boxes = decodePeaks(averageWithMirror(a, m), 0.3);
    expect(boxes).toHaveLength(1);
    const [b] = boxes;
    expect(b.score).toBeCloseTo(0.7);
    expect([b.x1, b.y1, b.x2, b.y2].map((v) => Math.round(v * 100) / 100)).toEqual([13 - 7, 10 - 10, 13 + 7, 10 + 10]);
  });
});
