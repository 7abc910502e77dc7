// A shelf photo of known layout for the browser tests, composed from real product crops
// (../shared/data/sku-crops) on a plain shelf: the crops used here are not the ones given to the SKUs
// as reference images, so recognition has to match them, not find copies.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import sharp, { type OverlayOptions } from 'sharp';
import { DATA } from './fixtures.js';

export const CROPS = path.join(DATA, 'sku-crops');

export function cropFiles(product: string): string[] {
  return readdirSync(path.join(CROPS, product))
    .filter((f) => f.endsWith('.jpg'))
    .sort()
    .map((f) => path.join(CROPS, product, f));
}

/** Reference images of a product: its first two crops. */
export function referenceImages(product: string): string[] {
  return cropFiles(product).slice(0, 2);
}

/**
 * Writes a JPEG of two shelves: each shelf a row of products given as [product, facings], each facing
 * a different crop (from the third on), scaled to one height and placed side by side.
 */
export async function composeShelf(file: string, shelves: Array<Array<[string, number]>>): Promise<void> {
  // The scale the shipped detector was trained at: products about 110 px tall, packed side by side.
  const productHeight = 110;
  const gap = 3;
  const shelfGap = 24;
  const margin = 30;
  const layers: OverlayOptions[] = [];
  const edges: number[] = [];
  let maxWidth = 0;
  let y = margin;
  for (const shelf of shelves) {
    let x = margin;
    for (const [product, facings] of shelf) {
      const crops = cropFiles(product).slice(2);
      for (let i = 0; i < facings; i++) {
        const input = await sharp(crops[i % crops.length]).resize({ height: productHeight }).toBuffer();
        const { width } = await sharp(input).metadata();
        layers.push({ input, left: x, top: y });
        x += (width ?? 150) + gap;
      }
    }
    maxWidth = Math.max(maxWidth, x);
    y += productHeight;
    edges.push(y);
    y += 12 + shelfGap;
  }
  const width = maxWidth + margin;
  const height = y + margin;
  // The shelf edge under each row.
  const edge = { create: { width, height: 12, channels: 3 as const, background: { r: 190, g: 190, b: 196 } } };
  for (const top of edges) layers.push({ input: edge, left: 0, top });
  await sharp({ create: { width, height, channels: 3, background: { r: 92, g: 80, b: 70 } } })
    .composite(layers)
    .jpeg({ quality: 90 })
    .toFile(file);
}
