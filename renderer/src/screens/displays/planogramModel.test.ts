import { describe, expect, it } from 'vitest';
import type { PlanogramRecord } from '../../api/types';
import {
  addRack,
  addShelf,
  diffRecords,
  insertPosition,
  layoutFromRecords,
  movePosition,
  recordsFromLayout,
  removePosition,
  removeShelf,
  updatePosition,
} from './planogramModel';

const rec = (id: string, rack: number, shelf: number, index: number, sku = `sku-${id}`): PlanogramRecord => ({
  id,
  planogram: 'p',
  sku,
  rack_index: rack,
  shelf_index: shelf,
  product_index: index,
  facing_x: 1,
  facing_y: 1,
  width: null,
  height: null,
});
const ids = (layout: ReturnType<typeof layoutFromRecords>) => layout.map((rack) => rack.map((shelf) => shelf.map((p) => p.id)));
const pos = (id: string) => ({ id, sku: `sku-${id}`, facing_x: 1, facing_y: 1, width: null, height: null });

describe('planogram layout', () => {
  it('arranges records by rack, shelf and product index, whatever their order', () => {
    const layout = layoutFromRecords([rec('c', 1, 0, 3), rec('b', 0, 1, 2), rec('a', 0, 0, 0), rec('a2', 0, 0, 1)]);
    expect(ids(layout)).toEqual([[['a', 'a2'], ['b']], [['c']]]);
  });

  it('starts an empty planogram with one rack of one empty shelf', () => {
    expect(ids(layoutFromRecords([]))).toEqual([[[]]]);
  });

  it('numbers product_index rack by rack, left to right then top to bottom', () => {
    const layout = layoutFromRecords([rec('a', 0, 0, 5), rec('b', 0, 0, 9), rec('c', 0, 1, 1), rec('d', 1, 0, 0)]);
    const records = recordsFromLayout(layout, 'p');
    expect(records.map((r) => [r.id, r.rack_index, r.shelf_index, r.product_index])).toEqual([
      ['a', 0, 0, 0],
      ['b', 0, 0, 1],
      ['c', 0, 1, 2],
      ['d', 1, 0, 3],
    ]);
  });

  it('moves within a shelf to the right and to the left, and across shelves', () => {
    const layout = layoutFromRecords([rec('a', 0, 0, 0), rec('b', 0, 0, 1), rec('c', 0, 0, 2), rec('d', 0, 1, 3)]);
    expect(ids(movePosition(layout, 'a', { rack: 0, shelf: 0, index: 2 }))).toEqual([[['b', 'a', 'c'], ['d']]]);
    expect(ids(movePosition(layout, 'c', { rack: 0, shelf: 0, index: 0 }))).toEqual([[['c', 'a', 'b'], ['d']]]);
    expect(ids(movePosition(layout, 'a', { rack: 0, shelf: 1, index: 99 }))).toEqual([[['b', 'c'], ['d', 'a']]]);
    expect(ids(movePosition(layout, 'zzz', { rack: 0, shelf: 1, index: 0 }))).toEqual(ids(layout));
    // The original is not changed: the editor keeps it to compare.
    expect(ids(layout)).toEqual([[['a', 'b', 'c'], ['d']]]);
  });

  it('inserts, updates facings, removes, and adds or removes shelves and racks', () => {
    let layout = layoutFromRecords([rec('a', 0, 0, 0)]);
    layout = insertPosition(layout, { rack: 0, shelf: 0, index: 0 }, pos('n'));
    layout = updatePosition(layout, 'n', { facing_x: 3, facing_y: 2 });
    expect(layout[0][0][0]).toMatchObject({ id: 'n', facing_x: 3, facing_y: 2 });
    layout = addShelf(addRack(layout), 1);
    expect(ids(layout)).toEqual([[['n', 'a']], [[], []]]);
    layout = removeShelf(removePosition(layout, 'a'), 1, 0);
    expect(ids(layout)).toEqual([[['n']], [[]]]);
  });
});

describe('diffRecords', () => {
  it('creates new positions, patches only what changed and deletes what is gone', () => {
    const original = [rec('a', 0, 0, 0), rec('b', 0, 0, 1), rec('c', 0, 1, 2)];
    let layout = layoutFromRecords(original);
    layout = movePosition(layout, 'b', { rack: 0, shelf: 0, index: 0 });
    layout = removePosition(layout, 'c');
    layout = insertPosition(layout, { rack: 0, shelf: 1, index: 0 }, pos('n'));
    layout = updatePosition(layout, 'a', { facing_x: 4 });
    const diff = diffRecords(original, recordsFromLayout(layout, 'p'));
    expect(diff.remove).toEqual(['c']);
    expect(diff.create).toEqual([expect.objectContaining({ id: 'n', rack_index: 0, shelf_index: 1, product_index: 2, planogram: 'p' })]);
    expect(diff.update).toEqual([
      { id: 'b', patch: { product_index: 0 } },
      { id: 'a', patch: { product_index: 1, facing_x: 4 } },
    ]);
  });

  it('is empty when nothing changed', () => {
    const original = [rec('a', 0, 0, 0), rec('b', 1, 0, 1)];
    expect(diffRecords(original, recordsFromLayout(layoutFromRecords(original), 'p'))).toEqual({ create: [], update: [], remove: [] });
  });
});
