// Groups the products detected in a photo into shelves (rows, top to bottom) and positions (left to
// right within a shelf). Products stand on shelf boards, so the bottom edges of one shelf's products
// line up whatever their heights (a tall bottle beside a can); rows are found by sweeping bottom
// edges downward and starting a new row at a jump of more than half a typical product height.
import { median } from './median.js';

export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface Placed<T extends Box> {
  item: T;
  shelf: number;
  position: number;
}

export interface ShelfLayout<T extends Box> {
  placed: Placed<T>[];
  /** One box per shelf spanning its products, top to bottom. */
  shelves: Box[];
}

export function groupIntoShelves<T extends Box>(items: readonly T[]): ShelfLayout<T> {
  if (items.length === 0) return { placed: [], shelves: [] };
  const h = median(items.map((b) => b.y2 - b.y1));
  const byBottom = [...items].sort((a, b) => a.y2 - b.y2);
  const rows: T[][] = [];
  let bottoms: number[] = [];
  for (const b of byBottom) {
    if (rows.length === 0 || b.y2 - median(bottoms) > 0.5 * h) {
      rows.push([b]);
      bottoms = [b.y2];
    } else {
      rows[rows.length - 1].push(b);
      bottoms.push(b.y2);
    }
  }
  const placed: Placed<T>[] = [];
  const shelves: Box[] = [];
  rows.forEach((row, shelf) => {
    row.sort((a, b) => a.x1 + a.x2 - (b.x1 + b.x2));
    row.forEach((item, position) => placed.push({ item, shelf, position }));
    shelves.push({
      x1: Math.min(...row.map((b) => b.x1)),
      y1: Math.min(...row.map((b) => b.y1)),
      x2: Math.max(...row.map((b) => b.x2)),
      y2: Math.max(...row.map((b) => b.y2)),
    });
  });
  return { placed, shelves };
}
