// Boxes the pipeline drops before identification (pipeline.ts, dropNestedBoxes): a box lying mostly
// inside a better one (a part of a pack), and, since issue 38's fourth round, one lying mostly over two or
// more better ones together: a box straddling two facings of a dense shelf, which was identified as a
// third facing.
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDetector, type Detector } from '../../main/server/recognition/detector/index.js';
import { dropNestedBoxes } from '../../main/server/recognition/pipeline.js';
import { DATA } from './fixtures.js';

const box = (x1: number, y1: number, x2: number, y2: number, score: number) => ({ x1, y1, x2, y2, score });

describe('boxes dropped before identification', () => {
  it('drops a box inside a better one, or over two better ones together; keeps facings side by side', () => {
    const left = box(0, 0, 100, 150, 0.9);
    const right = box(100, 0, 200, 150, 0.8);
    const label = box(10, 60, 90, 140, 0.5); // inside `left`
    const straddle = box(40, 0, 160, 150, 0.4); // half over each: 100 % covered by the two together
    const beside = box(200, 0, 300, 150, 0.3);
    const overlapping = box(150, 0, 260, 150, 0.2); // 45 % over `right`, 55 % over `beside`
    const loose = box(150, 0, 400, 150, 0.1); // a fifth over `right`, 40 % over `beside`: 60 % covered
    expect(dropNestedBoxes([left, right, label, straddle, beside, loose])).toEqual([left, right, beside, loose]);
    // Covered by better boxes together 45 + 55 %: dropped (a box is judged against the kept ones only).
    expect(dropNestedBoxes([left, right, beside, overlapping])).toEqual([left, right, beside]);
    // Nothing better: kept, whatever overlaps it afterwards.
    expect(dropNestedBoxes([straddle])).toEqual([straddle]);
  });

  describe('on a dense shelf', () => {
    let detector: Detector;
    beforeAll(async () => {
      detector = await createDetector();
    });
    afterAll(async () => {
      await detector.close();
    });

    it('drops the box over two Choco Krave facings and keeps both facings', async () => {
      const { data, info } = await sharp(path.join(DATA, 'shelf-recognition-exam', 'scenes', 'h4.jpg')).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const detected = (await detector.detect({ data, width: info.width, height: info.height, channels: info.channels })).boxes;
      const kept = dropNestedBoxes(detected);
      // The two orange Krave facings of the fourth shelf (by eye: x 364..424 and 400..476, y 307..377).
      const within = (b: { x1: number; y1: number; x2: number; y2: number }) => b.x1 >= 355 && b.x2 <= 485 && b.y1 >= 295 && b.y2 <= 390 && b.x2 - b.x1 > 40;
      const detectedThere = detected.filter(within);
      const keptThere = kept.filter(within);
      expect(detectedThere.length).toBeGreaterThanOrEqual(3);
      expect(keptThere).toHaveLength(2);
      // No kept box lies mostly inside the kept boxes that score better.
      expect(dropNestedBoxes(kept)).toEqual(kept);
    });
  });
});
