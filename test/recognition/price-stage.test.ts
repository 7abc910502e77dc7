// The price stage of the pipeline (recognition/prices/find-prices.ts through pipeline.ts): a real shelf
// photo through the real product detector, its tags read by the real OCR and linked to the facings
// detected. The tags are the hand-labelled boxes (bench/prices.labels.json), so the test judges reading
// and linking; the project's tag model runs on the same pixels (its recall is the bench's business).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImageAnalysis } from '../../main/server/recognition/analysis.js';
import { createDetector, type Detector } from '../../main/server/recognition/detector/index.js';
import { Identifier, PIPELINE_IDENTIFIER } from '../../main/server/recognition/identification/identifier.js';
import { analyzeScene } from '../../main/server/recognition/pipeline.js';
import { detectPriceTags } from '../../main/server/recognition/prices/tag-detector.js';
import { DATA } from './fixtures.js';

interface LabelledTag {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  price: string;
  facing: [number, number] | null;
}
const labels = JSON.parse(readFileSync('bench/prices.labels.json', 'utf8')) as { photos: Array<{ image: string; tags: LabelledTag[] }> };
const labelled = labels.photos.find((p) => p.image === 'test_799.jpg')!.tags;

let detector: Detector;
beforeAll(async () => {
  detector = await createDetector();
});
afterAll(async () => {
  await detector.close();
});

describe('the price stage', () => {
  it('reads and links the tags of a real photo, and the tag model runs on the same pixels', async () => {
    let modelBoxes: unknown[] | undefined;
    const analysis = await analyzeScene([{ id: 'p', path: path.join(DATA, 'shelf-photos', 'test_799.jpg') }], {
      detector,
      identifier: new Identifier(PIPELINE_IDENTIFIER),
      prices: {
        detect: async (raw) => {
          modelBoxes = await detectPriceTags(raw);
          return labelled.map((t) => ({ x1: t.x1, y1: t.y1, x2: t.x2, y2: t.y2, score: 1 }));
        },
        onError: (e) => {
          throw e;
        },
      },
    });
    expect(Array.isArray(modelBoxes)).toBe(true);
    expect(analysis.ms.prices).toBeGreaterThan(0);
    const image: ImageAnalysis = analysis.images[0];
    const tags = image.price_tags!;
    expect(tags).toHaveLength(labelled.length);
    let exact = 0;
    let linked = 0;
    for (const l of labelled) {
      const t = tags.find((x) => x.x1 === l.x1 && x.y1 === l.y1)!;
      if (t.reading.status === 'read' && (t.reading.price.hundredths / 100).toFixed(2) === l.price) exact++;
      // Never a wrong price: what is not read exactly is unreadable.
      else expect(t.reading.status, `${l.price}: ${t.text}`).toBe('unreadable');
      const p = t.product_index === null ? null : image.products[t.product_index];
      // The labelled facing, or one stacked under it in the same column (boxes stacked on the shelf):
      // across the labelled point, its bottom between the point and the tag.
      if (p && l.facing && p.x1 <= l.facing[0] && l.facing[0] <= p.x2 && l.facing[1] <= p.y2 && p.y2 <= l.y2) linked++;
      if (p) expect(t.shelf_index).toBe(p.shelf_index);
    }
    expect(exact).toBeGreaterThanOrEqual(7);
    expect(linked).toBeGreaterThanOrEqual(6);
  }, 120_000);

  it('keeps the products when the price stage fails, and leaves the tags out', async () => {
    const errors: unknown[] = [];
    const analysis = await analyzeScene([{ id: 'p', path: path.join(DATA, 'shelf-photos', 'test_1837.jpg') }], {
      detector,
      identifier: new Identifier(PIPELINE_IDENTIFIER),
      prices: {
        detect: () => Promise.reject(new Error('no tag model')),
        onError: (e) => errors.push(e),
      },
    });
    expect(errors).toEqual([new Error('no tag model')]);
    expect(analysis.images[0].products.length).toBeGreaterThan(20);
    expect(analysis.images[0].price_tags).toBeUndefined();
  }, 120_000);
});
