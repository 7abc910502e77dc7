// The boxes a reviewer is correcting, for every photo of every scene of a visit, with the edit history
// behind undo and redo. Each edit replaces the whole document (a few hundred small boxes), so undo is a
// swap of snapshots and nothing can half-apply. The server's copy (`saved`, with each photo's version)
// is kept apart: what differs from it is what Save sends, and what leaving the screen warns about.
import { create } from 'zustand';
import type { AnnotationBox, AnnotationsCorrection, SceneAnnotations } from '../../../api/types';

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A box as edited: REALOGRAM convention (x, y the centre), displayed pixels of the photo. */
export interface EditBox extends Rect {
  /** The server's id, or `new-N` for a box drawn here (sent without an id). */
  id: string;
  sku_id: string | null;
  unknown_on_purpose: boolean;
  /** The server's view of the box when it was read; null for a drawn one. */
  origin: AnnotationBox | null;
}

export interface EditPhoto {
  scene: string;
  image: string;
  width: number;
  height: number;
  boxes: EditBox[];
}

/** Photos by key (`scene/image`), in the order the scenes and their photos were read. */
export type ReviewDocument = Record<string, EditPhoto>;

export interface Selection {
  photo: string;
  box: string;
}

/** A scene's bay as the server merged it from the saved boxes (null without one). */
export type SceneBay = NonNullable<SceneAnnotations['bay']>;

/** A merged facing of a bay: its views as selections (`photoKey`, box id), the counted one first. */
export interface BayFacing {
  scene: string;
  index: number;
  sku_id: string | null;
  views: Selection[];
}

export interface ReviewState {
  /** Each scene's bay, by scene id, as last read from the server. */
  bays: Record<string, SceneBay>;
  /** The merged facing each box (`acceptKey`) is a view of, where its photo is joined into a bay. */
  facingOf: Record<string, BayFacing>;
  /** What the server has, per photo, with the version a save must send back. */
  saved: Record<string, { version: number; boxes: EditBox[] }>;
  current: ReviewDocument;
  past: ReviewDocument[];
  future: ReviewDocument[];
  selected: Selection | null;
  /** Boxes the reviewer accepted as they are (not an edit: no undo, not sent). */
  accepted: Record<string, true>;
  /** Starts over on the server's copy of these scenes (first read, or a reload after a conflict). */
  load(scenes: readonly SceneAnnotations[]): void;
  /** One scene as the server saved it: its photos and versions replace ours, the history stays. */
  savedScene(scene: SceneAnnotations): void;
  select(selection: Selection | null): void;
  /** Relabel, mark unknown and remove act on the box's merged facing: every view of it, as one step. */
  relabel(photo: string, box: string, sku: string): void;
  markUnknown(photo: string, box: string): void;
  remove(photo: string, box: string): void;
  /** Adds a drawn box (no SKU yet), selects it and answers its id; null when too small to be one. */
  draw(photo: string, rect: Rect): string | null;
  move(photo: string, box: string, rect: Rect): void;
  accept(photo: string, box: string): void;
  /**
   * Selects the next (or previous) box in reading order, across photos; with nothing selected, the
   * first (or last) box of `onPhoto` (the photo on screen), else of the whole review.
   */
  step(direction: 1 | -1, onPhoto?: string): void;
  undo(): void;
  redo(): void;
}

export const photoKey = (scene: string, image: string) => `${scene}/${image}`;
export const acceptKey = (s: Selection) => `${s.photo}#${s.box}`;

/** Smallest side of a drawn box, in photo pixels: a click is not a box. */
export const MIN_BOX = 4;
/** Edits kept for undo. */
const HISTORY = 200;

function fromServer(b: AnnotationBox): EditBox {
  return { id: b.id, x: b.x, y: b.y, w: b.w, h: b.h, sku_id: b.sku_id, unknown_on_purpose: b.unknown_on_purpose, origin: b };
}

/** The photos of a scene as edit photos, their server copy written into `saved`. */
function photosOf(scene: SceneAnnotations, saved: ReviewState['saved']): ReviewDocument {
  const out: ReviewDocument = {};
  for (const img of scene.images) {
    const key = photoKey(scene.scene, img.image);
    const boxes = img.boxes.map(fromServer);
    saved[key] = { version: img.version, boxes };
    out[key] = { scene: scene.scene, image: img.image, width: img.width, height: img.height, boxes };
  }
  return out;
}

/** The bay's facings of some scenes, by each view's `acceptKey`. */
function facingsOf(scenes: readonly SceneAnnotations[]): { bays: ReviewState['bays']; facingOf: ReviewState['facingOf'] } {
  const bays: ReviewState['bays'] = {};
  const facingOf: ReviewState['facingOf'] = {};
  for (const scene of scenes) {
    if (!scene.bay) continue;
    bays[scene.scene] = scene.bay;
    scene.bay.facings.forEach((f, index) => {
      const facing: BayFacing = { scene: scene.scene, index, sku_id: f.sku_id, views: f.views.map((v) => ({ photo: photoKey(scene.scene, v.image), box: v.box })) };
      for (const v of facing.views) facingOf[acceptKey(v)] = facing;
    });
  }
  return { bays, facingOf };
}

/** Every view of the box's merged facing still in the document (the box alone outside a bay). */
export function viewsOf(state: Pick<ReviewState, 'facingOf' | 'current'>, photo: string, box: string): Selection[] {
  const facing = state.facingOf[acceptKey({ photo, box })];
  if (!facing) return [{ photo, box }];
  return facing.views.filter((v) => state.current[v.photo]?.boxes.some((b) => b.id === v.box));
}

/** Whether the reviewer changed the box's SKU here (a drawn box counts as changed). */
const relabelled = (b: EditBox) => b.origin === null || b.sku_id !== b.origin.sku_id || b.unknown_on_purpose !== b.origin.unknown_on_purpose;
/** Changed here in any way: saved, it becomes the reviewer's box (scenes/review.ts), which the bay always counts. */
const edited = (b: EditBox) => relabelled(b) || b.x !== b.origin!.x || b.y !== b.origin!.y || b.w !== b.origin!.w || b.h !== b.origin!.h;

/**
 * Facings per SKU of a scene's boxes as corrected, each merged facing of its bay once, as FACING_COUNT
 * counts them: the server's SKU for the facing while none of its views is relabelled here (the bay may
 * name a facing its photos left unknown, on their agreement), else the relabelled view's. A box the bay
 * counts in no facing (its `passed`) counts once the reviewer changes it.
 */
export function sceneCounts(state: Pick<ReviewState, 'facingOf' | 'current' | 'bays'>, scene: string, doc: ReviewDocument = state.current) {
  const skus: { sku_id: string | null }[] = [];
  const seen = new Set<BayFacing>();
  const passed = new Set((state.bays[scene]?.passed ?? []).map((v) => acceptKey({ photo: photoKey(scene, v.image), box: v.box })));
  for (const [key, p] of Object.entries(doc)) {
    if (p.scene !== scene) continue;
    for (const b of p.boxes) {
      if (passed.has(acceptKey({ photo: key, box: b.id })) && !edited(b)) continue;
      const facing = state.facingOf[acceptKey({ photo: key, box: b.id })];
      if (facing) {
        if (seen.has(facing)) continue;
        seen.add(facing);
        const views = facing.views.map((v) => doc[v.photo]?.boxes.find((x) => x.id === v.box)).filter((x) => x !== undefined);
        const changed = views.find(relabelled);
        skus.push(changed ?? (views.length > 0 ? { sku_id: facing.sku_id } : b));
      } else skus.push(b);
    }
  }
  return countBoxes(skus);
}

/** The rectangle kept inside the photo, with sides no smaller than MIN_BOX. */
export function clampRect(r: Rect, width: number, height: number): Rect {
  let left = Math.max(0, Math.min(r.x - r.w / 2, r.x + r.w / 2));
  let top = Math.max(0, Math.min(r.y - r.h / 2, r.y + r.h / 2));
  let right = Math.min(width, Math.max(r.x - r.w / 2, r.x + r.w / 2));
  let bottom = Math.min(height, Math.max(r.y - r.h / 2, r.y + r.h / 2));
  if (right - left < MIN_BOX) {
    right = Math.min(width, left + MIN_BOX);
    left = Math.max(0, right - MIN_BOX);
  }
  if (bottom - top < MIN_BOX) {
    bottom = Math.min(height, top + MIN_BOX);
    top = Math.max(0, bottom - MIN_BOX);
  }
  return { x: (left + right) / 2, y: (top + bottom) / 2, w: right - left, h: bottom - top };
}

const sameBox = (a: EditBox, b: EditBox) =>
  a.id === b.id && a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h && a.sku_id === b.sku_id && a.unknown_on_purpose === b.unknown_on_purpose;

/** Keys of the photos whose boxes differ from the server's. */
export function changedPhotos(state: Pick<ReviewState, 'saved' | 'current'>): string[] {
  return Object.keys(state.current).filter((key) => {
    const now = state.current[key].boxes;
    const was = state.saved[key]?.boxes ?? [];
    return now.length !== was.length || now.some((b, i) => !sameBox(b, was[i]));
  });
}

/** What Save sends for one scene: its changed photos, each with the version read. */
export function correctionOf(state: Pick<ReviewState, 'saved' | 'current'>, scene: string): AnnotationsCorrection | null {
  const images = changedPhotos(state)
    .filter((key) => state.current[key].scene === scene)
    .map((key) => ({
      image: state.current[key].image,
      version: state.saved[key]?.version ?? 0,
      boxes: state.current[key].boxes.map((b) => ({
        ...(b.origin ? { id: b.id } : {}),
        x: b.x,
        y: b.y,
        w: b.w,
        h: b.h,
        sku_id: b.sku_id,
        unknown_on_purpose: b.sku_id === null && b.unknown_on_purpose,
      })),
    }));
  return images.length > 0 ? { images } : null;
}

/** Facings per SKU over some boxes, as FACING_COUNT has them: most first, unknown products last. */
export function countBoxes(boxes: readonly Pick<EditBox, 'sku_id'>[]): Array<{ sku_id: string | null; count: number }> {
  const counts = new Map<string, number>();
  let unknown = 0;
  for (const b of boxes) {
    if (b.sku_id === null) unknown++;
    else counts.set(b.sku_id, (counts.get(b.sku_id) ?? 0) + 1);
  }
  const out: Array<{ sku_id: string | null; count: number }> = [...counts]
    .map(([sku_id, count]) => ({ sku_id, count }))
    .sort((a, b) => b.count - a.count || a.sku_id!.localeCompare(b.sku_id!));
  if (unknown > 0) out.push({ sku_id: null, count: unknown });
  return out;
}

/**
 * Boxes in reading order: shelf by shelf from the top (a box starts a new row when its centre lies
 * below the current row's boxes), left to right within a row.
 */
export function readingOrder<B extends Rect>(boxes: readonly B[]): B[] {
  const rows: B[][] = [];
  for (const b of [...boxes].sort((a, c) => a.y - c.y)) {
    const row = rows.at(-1);
    const bottom = row ? Math.min(...row.map((r) => r.y + r.h / 2)) : -Infinity;
    if (row && b.y < bottom) row.push(b);
    else rows.push([b]);
  }
  return rows.flatMap((row) => row.sort((a, c) => a.x - c.x));
}

export function createReviewStore() {
  let drawn = 0;
  return create<ReviewState>()((set, get) => {
    /** Applies an edit to one photo's boxes as one undoable step. */
    function edit(photo: string, change: (boxes: EditBox[], p: EditPhoto) => EditBox[], selected?: Selection | null) {
      const { current, past } = get();
      const p = current[photo];
      if (!p) return;
      const boxes = change(p.boxes, p);
      if (boxes === p.boxes) return;
      set({
        current: { ...current, [photo]: { ...p, boxes } },
        past: [...past, current].slice(-HISTORY),
        future: [],
        ...(selected !== undefined ? { selected } : {}),
      });
    }
    /** Applies one change to boxes of several photos as one undoable step. */
    function editMany(targets: readonly Selection[], change: (b: EditBox) => EditBox | null, selected?: Selection | null) {
      const { current, past } = get();
      const next = { ...current };
      let changed = false;
      for (const photo of new Set(targets.map((t) => t.photo))) {
        const p = current[photo];
        if (!p) continue;
        const wanted = new Set(targets.filter((t) => t.photo === photo).map((t) => t.box));
        const boxes = p.boxes.flatMap((b) => {
          if (!wanted.has(b.id)) return [b];
          const c = change(b);
          if (c !== b) changed = true;
          return c ? [c] : [];
        });
        next[photo] = { ...p, boxes };
      }
      if (!changed) return;
      set({ current: next, past: [...past, current].slice(-HISTORY), future: [], ...(selected !== undefined ? { selected } : {}) });
    }
    /** Changes one box; a patch answering the box itself changes nothing (and adds no step). */
    const update = (photo: string, box: string, patch: (b: EditBox) => EditBox) =>
      edit(photo, (boxes) => {
        const at = boxes.findIndex((b) => b.id === box);
        if (at < 0) return boxes;
        const changed = patch(boxes[at]);
        return changed === boxes[at] ? boxes : boxes.with(at, changed);
      });
    /** The selection kept only while its box exists. */
    const stillThere = (doc: ReviewDocument, s: Selection | null) => (s && doc[s.photo]?.boxes.some((b) => b.id === s.box) ? s : null);

    return {
      bays: {},
      facingOf: {},
      saved: {},
      current: {},
      past: [],
      future: [],
      selected: null,
      accepted: {},
      load(scenes) {
        const saved: ReviewState['saved'] = {};
        const current: ReviewDocument = {};
        for (const scene of scenes) Object.assign(current, photosOf(scene, saved));
        // Undo must not step back over a reload: the history before it is gone.
        set((s) => ({ ...facingsOf(scenes), saved, current, past: [], future: [], selected: stillThere(current, s.selected) }));
      },
      savedScene(scene) {
        const saved = { ...get().saved };
        const current = { ...get().current, ...photosOf(scene, saved) };
        // The scene's facings as the server merged them from what was saved.
        const facingOf = Object.fromEntries(Object.entries(get().facingOf).filter(([, f]) => f.scene !== scene.scene));
        const bays = { ...get().bays };
        delete bays[scene.scene];
        const mine = facingsOf([scene]);
        // The history stays: undoing past a save is one more correction to save.
        set((s) => ({ bays: { ...bays, ...mine.bays }, facingOf: { ...facingOf, ...mine.facingOf }, saved, current, selected: stillThere(current, s.selected) }));
      },
      select(selected) {
        set({ selected });
      },
      relabel(photo, box, sku) {
        editMany(viewsOf(get(), photo, box), (b) => (b.sku_id === sku ? b : { ...b, sku_id: sku, unknown_on_purpose: false }));
      },
      markUnknown(photo, box) {
        editMany(viewsOf(get(), photo, box), (b) => (b.sku_id === null && b.unknown_on_purpose ? b : { ...b, sku_id: null, unknown_on_purpose: true }));
      },
      remove(photo, box) {
        const s = get().selected;
        const views = viewsOf(get(), photo, box);
        editMany(views, () => null, s && views.some((v) => v.photo === s.photo && v.box === s.box) ? null : s);
      },
      draw(photo, rect) {
        const p = get().current[photo];
        if (!p || Math.abs(rect.w) < MIN_BOX || Math.abs(rect.h) < MIN_BOX) return null;
        const id = `new-${++drawn}`;
        const box: EditBox = { ...clampRect(rect, p.width, p.height), id, sku_id: null, unknown_on_purpose: false, origin: null };
        edit(photo, (boxes) => [...boxes, box], { photo, box: id });
        return id;
      },
      move(photo, box, rect) {
        const p = get().current[photo];
        if (!p) return;
        const r = clampRect(rect, p.width, p.height);
        update(photo, box, (b) => (b.x === r.x && b.y === r.y && b.w === r.w && b.h === r.h ? b : { ...b, ...r }));
      },
      accept(photo, box) {
        set((s) => ({ accepted: { ...s.accepted, [acceptKey({ photo, box })]: true } }));
      },
      step(direction, onPhoto) {
        const { current, selected } = get();
        const order = Object.values(current).flatMap((p) => readingOrder(p.boxes).map((b) => ({ photo: photoKey(p.scene, p.image), box: b.id })));
        if (order.length === 0) return;
        const at = selected ? order.findIndex((o) => o.photo === selected.photo && o.box === selected.box) : -1;
        if (at >= 0) return set({ selected: order[(at + direction + order.length) % order.length] });
        const mine = order.filter((o) => o.photo === onPhoto);
        const from = mine.length > 0 ? mine : order;
        set({ selected: from[direction === 1 ? 0 : from.length - 1] });
      },
      undo() {
        const { past, current, future, selected } = get();
        const previous = past.at(-1);
        if (!previous) return;
        set({ current: previous, past: past.slice(0, -1), future: [current, ...future], selected: stillThere(previous, selected) });
      },
      redo() {
        const { past, current, future, selected } = get();
        const next = future[0];
        if (!next) return;
        set({ current: next, past: [...past, current], future: future.slice(1), selected: stillThere(next, selected) });
      },
    };
  });
}

export type ReviewStore = ReturnType<typeof createReviewStore>;
