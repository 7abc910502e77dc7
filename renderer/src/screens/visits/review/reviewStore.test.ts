import { describe, expect, it } from 'vitest';
import type { AnnotationBox, SceneAnnotations } from '../../../api/types';
import { changedPhotos, clampRect, correctionOf, countBoxes, createReviewStore, photoKey, readingOrder, sceneCounts } from './reviewStore';

const box = (id: string, x: number, y: number, sku: string | null): AnnotationBox => ({
  id,
  x,
  y,
  w: 20,
  h: 40,
  sku_id: sku,
  score: 0.9,
  sku_score: sku ? 0.8 : 0,
  source: 'model',
  unknown_on_purpose: false,
});

/** Scene b of two 200x100 photos joined into one bay, img2 160 px right of img1. */
const twoPhotoBay = (
  boxes1: AnnotationBox[],
  boxes2: AnnotationBox[],
  facings: NonNullable<SceneAnnotations['bay']>['facings'],
  version2 = 0,
  passed: NonNullable<SceneAnnotations['bay']>['passed'] = [],
): SceneAnnotations => ({
  scene: 'b',
  visit: 'v',
  reviewed: false,
  images: [
    { image: 'img1', width: 200, height: 100, version: 0, reviewer: null, reviewed_date: null, boxes: boxes1 },
    { image: 'img2', width: 200, height: 100, version: version2, reviewer: null, reviewed_date: null, boxes: boxes2 },
  ],
  bay: {
    width: 360,
    height: 100,
    photos: [
      { image: 'img1', joined: true, transform: [1, 0, 0, 0, 1, 0, 0, 0, 1], message: null },
      { image: 'img2', joined: true, transform: [1, 0, 160, 0, 1, 0, 0, 0, 1], message: null },
    ],
    facings,
    passed,
  },
});

const scene = (id: string, version = 0, boxes = [box('m0', 20, 30, 'cola'), box('m1', 50, 30, 'cola'), box('m2', 80, 30, null)]): SceneAnnotations => ({
  scene: id,
  visit: 'v',
  reviewed: version > 0,
  images: [{ image: 'img1', width: 200, height: 100, version, reviewer: null, reviewed_date: null, boxes }],
  bay: null,
});

const P = photoKey('s1', 'img1');

function loaded() {
  const store = createReviewStore();
  store.getState().load([scene('s1')]);
  return store;
}

describe('review store', () => {
  it('starts clean and counts facings as FACING_COUNT does', () => {
    const store = loaded();
    expect(changedPhotos(store.getState())).toEqual([]);
    expect(correctionOf(store.getState(), 's1')).toBeNull();
    expect(countBoxes(store.getState().current[P].boxes)).toEqual([
      { sku_id: 'cola', count: 2 },
      { sku_id: null, count: 1 },
    ]);
  });

  it('relabels, deletes, draws, and undoes and redoes each step', () => {
    const store = loaded();
    const s = () => store.getState();
    s().relabel(P, 'm2', 'fanta');
    s().remove(P, 'm0');
    const drawn = s().draw(P, { x: 150, y: 60, w: 30, h: 30 });
    expect(drawn).toMatch(/^new-/);
    expect(s().selected).toEqual({ photo: P, box: drawn });
    expect(countBoxes(s().current[P].boxes)).toEqual([
      { sku_id: 'cola', count: 1 },
      { sku_id: 'fanta', count: 1 },
      { sku_id: null, count: 1 },
    ]);
    expect(s().past).toHaveLength(3);

    s().undo();
    expect(s().current[P].boxes.map((b) => b.id)).toEqual(['m1', 'm2']);
    expect(s().selected).toBeNull();
    s().undo();
    s().undo();
    expect(changedPhotos(s())).toEqual([]);
    s().undo(); // nothing more to undo
    expect(s().current[P].boxes).toHaveLength(3);
    s().redo();
    expect(s().current[P].boxes.find((b) => b.id === 'm2')?.sku_id).toBe('fanta');
    expect(changedPhotos(s())).toEqual([P]);
    // A new edit drops what could be redone.
    s().markUnknown(P, 'm0');
    expect(s().future).toEqual([]);
    s().redo();
    expect(s().current[P].boxes).toHaveLength(3);
  });

  it('an edit that changes nothing is not a step', () => {
    const store = loaded();
    store.getState().relabel(P, 'm0', 'cola');
    store.getState().remove(P, 'nope');
    expect(store.getState().draw(P, { x: 10, y: 10, w: 2, h: 30 })).toBeNull();
    expect(store.getState().past).toHaveLength(0);
  });

  it('sends the changed photos with the version read; drawn boxes without an id, unknown on purpose only without an SKU', () => {
    const store = createReviewStore();
    store.getState().load([scene('s1', 3), { ...scene('s2'), images: [{ ...scene('s2').images[0], image: 'img2' }] }]);
    const s = () => store.getState();
    s().markUnknown(P, 'm0');
    s().draw(P, { x: 190, y: 95, w: 40, h: 20 }); // reaches past the corner: kept inside the photo
    s().move(P, 'm1', { x: 55, y: 30, w: 24, h: 40 });
    expect(correctionOf(s(), 's2')).toBeNull();
    const body = correctionOf(s(), 's1')!;
    expect(body.images).toHaveLength(1);
    expect(body.images[0].version).toBe(3);
    expect(body.images[0].boxes).toEqual([
      { id: 'm0', x: 20, y: 30, w: 20, h: 40, sku_id: null, unknown_on_purpose: true },
      { id: 'm1', x: 55, y: 30, w: 24, h: 40, sku_id: 'cola', unknown_on_purpose: false },
      { id: 'm2', x: 80, y: 30, w: 20, h: 40, sku_id: null, unknown_on_purpose: false },
      { x: 185, y: 92.5, w: 30, h: 15, sku_id: null, unknown_on_purpose: false },
    ]);
    // Choosing an SKU for a box marked unknown clears the mark.
    s().relabel(P, 'm0', 'sprite');
    expect(correctionOf(s(), 's1')!.images[0].boxes[0]).toMatchObject({ sku_id: 'sprite', unknown_on_purpose: false });
  });

  it('after a save the server copy is the baseline, and undo past it is a change to save again', () => {
    const store = loaded();
    const s = () => store.getState();
    s().remove(P, 'm2');
    s().savedScene(scene('s1', 1, [box('m0', 20, 30, 'cola'), box('m1', 50, 30, 'cola')]));
    expect(changedPhotos(s())).toEqual([]);
    expect(s().saved[P].version).toBe(1);
    s().undo();
    expect(changedPhotos(s())).toEqual([P]);
    expect(correctionOf(s(), 's1')!.images[0].version).toBe(1);
    // A reload starts over: no history.
    s().load([scene('s1', 2)]);
    expect(s().past).toEqual([]);
    expect(changedPhotos(s())).toEqual([]);
  });

  it('steps through boxes in reading order across photos, and wraps', () => {
    const store = createReviewStore();
    store.getState().load([scene('s1', 0, [box('b', 80, 30, null), box('c', 20, 80, null), box('a', 20, 32, null)])]);
    const s = () => store.getState();
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      s().step(1);
      seen.push(s().selected!.box);
    }
    expect(seen).toEqual(['a', 'b', 'c', 'a']);
    s().step(-1);
    expect(s().selected!.box).toBe('c');
    s().accept(P, 'c');
    expect(Object.keys(s().accepted)).toEqual([`${P}#c`]);
  });

  it('with nothing selected, starts on the photo on screen', () => {
    const store = createReviewStore();
    const second = { ...scene('s2'), images: [{ ...scene('s2').images[0], image: 'img2', boxes: [box('z', 20, 30, null), box('y', 90, 30, null)] }] };
    store.getState().load([scene('s1'), second]);
    const s = () => store.getState();
    s().step(1, photoKey('s2', 'img2'));
    expect(s().selected).toEqual({ photo: photoKey('s2', 'img2'), box: 'z' });
    s().step(1);
    expect(s().selected!.box).toBe('y');
    s().step(1); // past the last box of the last photo: back to the first photo
    expect(s().selected).toEqual({ photo: P, box: 'm0' });
    s().select(null);
    s().step(-1, photoKey('s2', 'img2'));
    expect(s().selected!.box).toBe('y');
  });

  it('keeps rectangles inside the photo and never thinner than a few pixels', () => {
    expect(clampRect({ x: -5, y: 50, w: 20, h: 10 }, 100, 100)).toEqual({ x: 2.5, y: 50, w: 5, h: 10 });
    expect(clampRect({ x: 50, y: 50, w: 1, h: 1 }, 100, 100)).toEqual({ x: 51.5, y: 51.5, w: 4, h: 4 });
    expect(readingOrder([{ x: 5, y: 50, w: 1, h: 1 }])).toHaveLength(1);
  });

  it('on a bay, a change of a merged facing goes to each of its views as one step, and the facing counts once', () => {
    // Two photos of one bay: m1 of img1 and m0 of img2 are one product seen twice.
    const bayScene = twoPhotoBay(
      [box('m0', 20, 30, 'cola'), box('m1', 180, 30, 'cola')],
      [box('m0', 20, 30, 'cola'), box('m1', 100, 30, null)],
      [
          { x: 20, y: 30, w: 20, h: 40, sku_id: 'cola', counted: { image: 'img1', box: 'm0' }, views: [{ image: 'img1', box: 'm0' }] },
          { x: 180, y: 30, w: 20, h: 40, sku_id: 'cola', counted: { image: 'img1', box: 'm1' }, views: [{ image: 'img1', box: 'm1' }, { image: 'img2', box: 'm0' }] },
          { x: 260, y: 30, w: 20, h: 40, sku_id: null, counted: { image: 'img2', box: 'm1' }, views: [{ image: 'img2', box: 'm1' }] },
      ],
      2,
    );
    const store = createReviewStore();
    store.getState().load([bayScene]);
    const s = () => store.getState();
    const [A, B] = [photoKey('b', 'img1'), photoKey('b', 'img2')];
    // Summing the photos would say 3 cola; the bay has 2.
    expect(sceneCounts(s(), 'b')).toEqual([{ sku_id: 'cola', count: 2 }, { sku_id: null, count: 1 }]);
    s().relabel(B, 'm0', 'fanta');
    expect(s().current[A].boxes[1].sku_id).toBe('fanta');
    expect(s().current[B].boxes[0].sku_id).toBe('fanta');
    expect(s().past).toHaveLength(1);
    expect(sceneCounts(s(), 'b')).toEqual([{ sku_id: 'cola', count: 1 }, { sku_id: 'fanta', count: 1 }, { sku_id: null, count: 1 }]);
    // Both photos are sent, each with its own version and its own pixels.
    const body = correctionOf(s(), 'b')!;
    expect(body.images.map((i) => [i.image, i.version])).toEqual([['img1', 0], ['img2', 2]]);
    expect(body.images[1].boxes[0]).toMatchObject({ id: 'm0', x: 20, sku_id: 'fanta' });
    s().select({ photo: A, box: 'm1' });
    s().remove(A, 'm1');
    expect(s().current[A].boxes.map((b) => b.id)).toEqual(['m0']);
    expect(s().current[B].boxes.map((b) => b.id)).toEqual(['m1']);
    expect(s().selected).toBeNull();
    expect(sceneCounts(s(), 'b')).toEqual([{ sku_id: 'cola', count: 1 }, { sku_id: null, count: 1 }]);
    s().undo();
    expect(s().current[B].boxes).toHaveLength(2);
    // A box outside any facing is changed alone.
    s().relabel(B, 'm1', 'sprite');
    expect(s().current[A].boxes.map((b) => b.sku_id)).toEqual(['cola', 'fanta']);
  });

  it('counts a merged facing under the SKU the bay gave it while no view of it is relabelled', () => {
    // Both photos left the product unknown; the bay took the candidate they agree on (bay/facings.ts).
    const bayScene = twoPhotoBay([box('m0', 180, 30, null)], [box('m0', 20, 30, null)], [
      { x: 180, y: 30, w: 20, h: 40, sku_id: 'cola', counted: { image: 'img1', box: 'm0' }, views: [{ image: 'img1', box: 'm0' }, { image: 'img2', box: 'm0' }] },
    ]);
    const store = createReviewStore();
    store.getState().load([bayScene]);
    const s = () => store.getState();
    expect(sceneCounts(s(), 'b')).toEqual([{ sku_id: 'cola', count: 1 }]);
    // The reviewer's word wins over the bay's.
    s().markUnknown(photoKey('b', 'img2'), 'm0');
    expect(sceneCounts(s(), 'b')).toEqual([{ sku_id: null, count: 1 }]);
    s().relabel(photoKey('b', 'img1'), 'm0', 'fanta');
    expect(sceneCounts(s(), 'b')).toEqual([{ sku_id: 'fanta', count: 1 }]);
  });

  it("does not count a box the bay counts in no facing (cut by its photo's edge, the place empty in the other photo) until the reviewer changes it", () => {
    // img1's m1 is cut by its right edge where img2 sees the place whole and found nothing (bay/facings.ts).
    const bayScene = twoPhotoBay([box('m0', 100, 30, 'cola'), box('m1', 195, 30, 'cola')], [box('m0', 100, 30, 'fanta')], [
      { x: 100, y: 30, w: 20, h: 40, sku_id: 'cola', counted: { image: 'img1', box: 'm0' }, views: [{ image: 'img1', box: 'm0' }] },
      { x: 260, y: 30, w: 20, h: 40, sku_id: 'fanta', counted: { image: 'img2', box: 'm0' }, views: [{ image: 'img2', box: 'm0' }] },
    ], 0, [{ image: 'img1', box: 'm1' }]);
    const store = createReviewStore();
    store.getState().load([bayScene]);
    const s = () => store.getState();
    // As FACING_COUNT counts the bay: one cola, one fanta.
    expect(sceneCounts(s(), 'b')).toEqual([{ sku_id: 'cola', count: 1 }, { sku_id: 'fanta', count: 1 }]);
    // The reviewer's box always counts (saved, it is theirs).
    s().relabel(photoKey('b', 'img1'), 'm1', 'sprite');
    expect(sceneCounts(s(), 'b')).toEqual([{ sku_id: 'cola', count: 1 }, { sku_id: 'fanta', count: 1 }, { sku_id: 'sprite', count: 1 }]);
  });
});
