// Linking price tags to the facings they price (recognition/prices/link.ts): the facing standing above
// a shelf-edge tag (left-aligned or centred), a peg tag's product, a tag's EAN, and a tag under a gap
// linked to nothing.
import { describe, expect, it } from 'vitest';
import { linkTags, type LinkFacing } from '../../main/server/recognition/prices/link.js';

// Two shelves of 100 x 200 facings: shelf 0 stands on a board at y 300, shelf 1 on one at y 650.
const facing = (x: number, bottom: number, sku: string | null, shelf: number, w = 100, h = 200): LinkFacing => ({ x1: x, y1: bottom - h, x2: x + w, y2: bottom, sku_id: sku, shelf_index: shelf });
const facings: LinkFacing[] = [
  facing(0, 300, 'a', 0),
  facing(100, 300, 'b', 0),
  facing(200, 300, 'c', 0),
  // A gap at 300..400 on shelf 0 (sold out).
  facing(400, 300, 'd', 0),
  facing(0, 650, 'e', 1),
  facing(100, 650, 'f', 1),
];
const tag = (x1: number, y1: number, w = 60, h = 30, ean: string | null = null) => ({ x1, y1, x2: x1 + w, y2: y1 + h, ean });

describe('linking tags to facings', () => {
  it('links a shelf-edge tag to the facing above it, at its left edge or centred', () => {
    const [left, centred, second] = linkTags([tag(102, 305), tag(220, 305), tag(5, 655)], facings);
    expect(left).toEqual({ product_index: 1, sku_id: 'b', shelf_index: 0 });
    expect(centred).toEqual({ product_index: 2, sku_id: 'c', shelf_index: 0 });
    expect(second).toEqual({ product_index: 4, sku_id: 'e', shelf_index: 1 });
  });

  it('links a tag under a gap to no product, on the shelf it sits under', () => {
    const [gap] = linkTags([tag(320, 305)], facings);
    // Not the facing below it on shelf 1, nor a neighbour on shelf 0.
    expect(gap).toEqual({ product_index: null, sku_id: null, shelf_index: 0 });
  });

  it('links a tag far from every product to nothing', () => {
    expect(linkTags([tag(900, 900)], facings)).toEqual([{ product_index: null, sku_id: null, shelf_index: null }]);
  });

  it('links a peg tag to the product hanging below it', () => {
    const pegs = [facing(1000, 500, 'p', 0, 80, 150), facing(1000, 800, 'q', 1, 80, 150)];
    // The tag hangs on the peg above q, under p's bottom by more than a board's reach.
    const [t] = linkTags([tag(1010, 620, 60, 25)], pegs);
    expect(t).toEqual({ product_index: 1, sku_id: 'q', shelf_index: 1 });
  });

  it('links a tag to the SKU whose EAN it prints, whatever stands above it', () => {
    const eans = new Map([['4006381333931', 'f']]);
    const [byEan, unknownEan] = linkTags([tag(102, 305, 60, 30, '4006381333931'), tag(102, 305, 60, 30, '0000000000000')], facings, eans);
    expect(byEan).toEqual({ product_index: 5, sku_id: 'f', shelf_index: 1 });
    expect(unknownEan).toEqual({ product_index: 1, sku_id: 'b', shelf_index: 0 });
    // An EAN of a SKU not in view: the SKU, no facing.
    const [absent] = linkTags([tag(102, 305, 60, 30, '4006381333931')], facings.slice(0, 4), eans);
    expect(absent).toEqual({ product_index: null, sku_id: 'f', shelf_index: 0 });
  });
});
