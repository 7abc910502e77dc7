// The zoomed pass's bands (detector/bands.ts): what keeps its memory at the first pass's.
import { describe, expect, it } from 'vitest';

import { planBands, sliceRows } from '../../main/server/recognition/detector/bands.js';

describe('bands of the zoomed pass', () => {
  it('is one band, the whole input, when the input fits', () => {
    expect(planBands(960, 1280, 960 * 1280, 64)).toEqual([{ y0: 0, y1: 960, core0: 0, core1: 960 }]);
  });

  it('tiles the input with cores, each band within the pixels asked for and aligned', () => {
    for (const [h, w, max] of [
      [1440, 1920, 1280 * 960],
      [1728, 1152, 1 << 20],
      [224, 288, 288 * 160],
      [4096, 640, 640 * 700],
    ]) {
      const bands = planBands(h, w, max, 64);
      expect(bands.length).toBeGreaterThan(1);
      expect(bands[0].core0).toBe(0);
      expect(bands.at(-1)!.core1).toBe(h);
      bands.forEach((b, i) => {
        if (i > 0) expect(b.core0).toBe(bands[i - 1].core1);
        expect((b.y1 - b.y0) * w).toBeLessThanOrEqual(max);
        for (const y of [b.y0, b.y1, b.core0]) expect(y % 32 === 0 || y === h).toBe(true);
        // 64 rows of context beyond the core wherever there is a neighbour.
        expect(b.y0).toBe(Math.max(0, b.core0 - 64));
        expect(b.y1).toBe(Math.min(h, b.core1 + 64));
        expect(b.core1).toBeGreaterThan(b.core0);
      });
    }
  });

  it('still gives every band a core when the input is too wide for the pixels asked', () => {
    const bands = planBands(640, 4000, 4000 * 64, 64);
    expect(bands.every((b) => b.core1 - b.core0 >= 32)).toBe(true);
    expect(bands.at(-1)!.core1).toBe(640);
  });

  it('cuts rows out of every channel of an NCHW tensor', () => {
    const w = 3;
    const h = 4;
    const t = Float32Array.from({ length: 3 * w * h }, (_, i) => i);
    // channel c, row y, column x holds c*12 + y*3 + x
    expect(Array.from(sliceRows(t, w, h, 1, 3))).toEqual([3, 4, 5, 6, 7, 8, 15, 16, 17, 18, 19, 20, 27, 28, 29, 30, 31, 32]);
  });
});
