import { describe, expect, it } from 'vitest';
import { centreOn, MAX_SCALE, zoomAt } from './view';

describe('photo view', () => {
  const fit = { scale: 0.25, x: 10, y: 20, fit: 0.25 };

  it('zooms around the pointer: the photo point under it stays put', () => {
    const v = zoomAt(fit, 2, 300, 200);
    expect(v.scale).toBe(0.5);
    const before = { x: (300 - fit.x) / fit.scale, y: (200 - fit.y) / fit.scale };
    expect(before.x * v.scale + v.x).toBeCloseTo(300);
    expect(before.y * v.scale + v.y).toBeCloseTo(200);
  });

  it('stays between half the fitting scale and the largest zoom', () => {
    expect(zoomAt(fit, 0.01, 0, 0).scale).toBe(0.125);
    expect(zoomAt(fit, 1000, 0, 0).scale).toBe(MAX_SCALE);
  });

  it('centres a photo point in the viewport', () => {
    const v = centreOn({ ...fit, scale: 2 }, { x: 1000, y: 500 }, 800, 600);
    expect(1000 * v.scale + v.x).toBe(400);
    expect(500 * v.scale + v.y).toBe(300);
  });
});
