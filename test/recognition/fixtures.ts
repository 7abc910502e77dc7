// Real images for the recognition tests: SKU crops and Grocery Store packshots from ../shared/data,
// and shelf photos of known layout composed at test time from crops that are NOT the SKUs' reference
// images, so recognition has to match products, not find copies.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import sharp, { type OverlayOptions } from 'sharp';

export const DATA = path.resolve(process.env.SHARED_DATA ?? path.join('..', 'shared', 'data'));
export const CROPS = path.join(DATA, 'sku-crops');
export const GROCERY = path.join(DATA, 'grocery-store-dataset', 'dataset');

/** The soft-drink SKUs of sku-crops that stand upright (bottles and cartons), usable on a shelf. */
export const UPRIGHT = ['cocacola_pet', 'cream_soda_pet', 'fanta_pet', 'sprite_pet', 'minute_maid'] as const;
export const REFERENCES_PER_SKU = 3;

export function cropFiles(product: string): string[] {
  return readdirSync(path.join(CROPS, product))
    .filter((f) => f.endsWith('.jpg'))
    .sort()
    .map((f) => path.join(CROPS, product, f));
}

export const referenceFiles = (product: string) => cropFiles(product).slice(0, REFERENCES_PER_SKU);
/** Crops never given to the catalog. */
export const unseenFiles = (product: string) => cropFiles(product).slice(REFERENCES_PER_SKU);

/** Grocery Store packaged-goods classes with their iconic packshot (catalog distractors). */
export function groceryPackshots(count: number): Array<{ name: string; file: string }> {
  const root = path.join(GROCERY, 'iconic-images-and-descriptions', 'Packages');
  const out: Array<{ name: string; file: string }> = [];
  for (const group of readdirSync(root).sort()) {
    for (const cls of readdirSync(path.join(root, group)).sort()) {
      const file = readdirSync(path.join(root, group, cls)).find((f) => f.endsWith('_Iconic.jpg'));
      if (file) out.push({ name: cls, file: path.join(root, group, cls, file) });
      if (out.length >= count) return out;
    }
  }
  return out;
}

export interface PlacedProduct {
  product: string;
  shelf: number;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface ComposedShelf {
  jpeg: Buffer;
  width: number;
  height: number;
  /** Where each product was placed, row by row, left to right. */
  products: PlacedProduct[];
}

/**
 * A shelf photo in the style the detector was trained on (products packed side by side on shelf
 * boards, about 110 px tall): each row a list of [product, facings], each facing a different unseen
 * crop, with a little jitter in spacing.
 */
export async function composeShelf(rows: Array<Array<[string, number]>>, productHeight = 110): Promise<ComposedShelf> {
  const gap = 3;
  const board = 12;
  const rowGap = 24;
  const margin = 30;
  const products: PlacedProduct[] = [];
  const layers: OverlayOptions[] = [];
  const boards: number[] = [];
  let width = 0;
  let y = margin;
  for (const [shelf, row] of rows.entries()) {
    let x = margin;
    for (const [product, facings] of row) {
      const crops = unseenFiles(product);
      for (let i = 0; i < facings; i++) {
        const input = await sharp(crops[i % crops.length]).resize({ height: productHeight }).toBuffer();
        const { width: w = 100 } = await sharp(input).metadata();
        layers.push({ input, left: x, top: y });
        products.push({ product, shelf, x1: x, y1: y, x2: x + w, y2: y + productHeight });
        x += w + gap + (i % 2) * 2;
      }
    }
    width = Math.max(width, x + margin);
    y += productHeight;
    boards.push(y);
    y += board + rowGap;
  }
  const height = y + margin - rowGap;
  const edge = { create: { width, height: board, channels: 3 as const, background: { r: 200, g: 200, b: 205 } } };
  for (const top of boards) layers.push({ input: edge, left: 0, top });
  const jpeg = await sharp({ create: { width, height, channels: 3, background: { r: 88, g: 78, b: 70 } } })
    .composite(layers)
    .jpeg({ quality: 92 })
    .toBuffer();
  return { jpeg, width, height, products };
}
