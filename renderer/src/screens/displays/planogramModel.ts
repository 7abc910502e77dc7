// The planogram editor's working copy: racks (left to right) of shelves (top to bottom) of positions
// (left to right), each a planogram record. Edits happen here and are saved as a diff of records.
import type { PlanogramRecord } from '../../api/types';

export interface Position {
  /** The record's id; new positions get a client id the server keeps. */
  id: string;
  sku: string;
  facing_x: number;
  facing_y: number;
  width: number | null;
  height: number | null;
}

export type Shelf = Position[];
export type Rack = Shelf[];
export type Layout = Rack[];

export interface Place {
  rack: number;
  shelf: number;
  index: number;
}

export function layoutFromRecords(records: readonly PlanogramRecord[]): Layout {
  const layout: Layout = [];
  const sorted = [...records].sort(
    (a, b) => a.rack_index - b.rack_index || a.shelf_index - b.shelf_index || a.product_index - b.product_index,
  );
  for (const r of sorted) {
    while (layout.length <= r.rack_index) layout.push([]);
    const rack = layout[r.rack_index];
    while (rack.length <= r.shelf_index) rack.push([]);
    rack[r.shelf_index].push({
      id: r.id,
      sku: r.sku,
      facing_x: r.facing_x,
      facing_y: r.facing_y,
      width: r.width,
      height: r.height,
    });
  }
  if (layout.length === 0) layout.push([[]]);
  for (const rack of layout) if (rack.length === 0) rack.push([]);
  return layout;
}

/**
 * Records for a layout. product_index numbers the positions rack by rack, each rack left to right
 * then top to bottom, so the top-left product of the first rack is 0 and the last one is the largest.
 */
export function recordsFromLayout(layout: Layout, planogram: string): Omit<PlanogramRecord, 'created_at' | 'updated_at'>[] {
  const out: Omit<PlanogramRecord, 'created_at' | 'updated_at'>[] = [];
  let productIndex = 0;
  layout.forEach((rack, rackIndex) =>
    rack.forEach((shelf, shelfIndex) =>
      shelf.forEach((p) =>
        out.push({
          id: p.id,
          planogram,
          sku: p.sku,
          rack_index: rackIndex,
          shelf_index: shelfIndex,
          product_index: productIndex++,
          facing_x: p.facing_x,
          facing_y: p.facing_y,
          width: p.width,
          height: p.height,
        }),
      ),
    ),
  );
  return out;
}

const clone = (layout: Layout): Layout => layout.map((rack) => rack.map((shelf) => [...shelf]));

export function findPosition(layout: Layout, id: string): Place | null {
  for (let rack = 0; rack < layout.length; rack++)
    for (let shelf = 0; shelf < layout[rack].length; shelf++) {
      const index = layout[rack][shelf].findIndex((p) => p.id === id);
      if (index >= 0) return { rack, shelf, index };
    }
  return null;
}

export function insertPosition(layout: Layout, at: Place, position: Position): Layout {
  const next = clone(layout);
  const shelf = next[at.rack][at.shelf];
  shelf.splice(Math.min(Math.max(0, at.index), shelf.length), 0, position);
  return next;
}

/** Moves a position to a place; `to.index` counts positions as they are before the move. */
export function movePosition(layout: Layout, id: string, to: Place): Layout {
  const from = findPosition(layout, id);
  if (!from) return layout;
  const next = clone(layout);
  const [moved] = next[from.rack][from.shelf].splice(from.index, 1);
  let index = to.index;
  if (from.rack === to.rack && from.shelf === to.shelf && from.index < to.index) index -= 1;
  const shelf = next[to.rack][to.shelf];
  shelf.splice(Math.min(Math.max(0, index), shelf.length), 0, moved);
  return next;
}

export function updatePosition(layout: Layout, id: string, patch: Partial<Omit<Position, 'id'>>): Layout {
  return layout.map((rack) => rack.map((shelf) => shelf.map((p) => (p.id === id ? { ...p, ...patch } : p))));
}

export function removePosition(layout: Layout, id: string): Layout {
  return layout.map((rack) => rack.map((shelf) => shelf.filter((p) => p.id !== id)));
}

export function addShelf(layout: Layout, rack: number): Layout {
  const next = clone(layout);
  next[rack].push([]);
  return next;
}

export function removeShelf(layout: Layout, rack: number, shelf: number): Layout {
  const next = clone(layout);
  next[rack].splice(shelf, 1);
  if (next[rack].length === 0) next[rack].push([]);
  return next;
}

export function addRack(layout: Layout): Layout {
  return [...clone(layout), [[]]];
}

export function removeRack(layout: Layout, rack: number): Layout {
  const next = clone(layout);
  next.splice(rack, 1);
  return next.length ? next : [[[]]];
}

type RecordFields = Omit<PlanogramRecord, 'created_at' | 'updated_at'>;

export interface RecordDiff {
  create: RecordFields[];
  update: Array<{ id: string; patch: Partial<RecordFields> }>;
  remove: string[];
}

const COMPARED = ['sku', 'rack_index', 'shelf_index', 'product_index', 'facing_x', 'facing_y', 'width', 'height'] as const;

/** What to send so the server's records become `edited`. */
export function diffRecords(original: readonly PlanogramRecord[], edited: readonly RecordFields[]): RecordDiff {
  const before = new Map(original.map((r) => [r.id, r]));
  const diff: RecordDiff = { create: [], update: [], remove: [] };
  const kept = new Set<string>();
  for (const r of edited) {
    const old = before.get(r.id);
    if (!old) {
      diff.create.push(r);
      continue;
    }
    kept.add(r.id);
    const patch: Partial<RecordFields> = {};
    for (const key of COMPARED) if (old[key] !== r[key]) (patch as Record<string, unknown>)[key] = r[key];
    if (Object.keys(patch).length) diff.update.push({ id: r.id, patch });
  }
  for (const r of original) if (!kept.has(r.id)) diff.remove.push(r.id);
  return diff;
}
