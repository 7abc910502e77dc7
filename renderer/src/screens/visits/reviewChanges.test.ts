import { describe, expect, it } from 'vitest';
import type { Correction } from '../../api/types';
import { summariseReview } from './reviewChanges';

const box = (id: string, sku_id: string | null) => ({ id, x: 10, y: 10, w: 5, h: 5, sku_id, score: 0.9, sku_score: 0.8, source: 'model' as const, unknown_on_purpose: false });

const correction = (over: Partial<Correction>): Correction => ({
  id: 'c1',
  scene: 's1',
  image: 'i1',
  version: 1,
  reviewer: 'key-1',
  created_date: '2026-11-27T10:00:00.000Z',
  before: [],
  after: [],
  ...over,
});

describe('what a review changed', () => {
  it('is nothing when no photo was reviewed', () => {
    expect(summariseReview([])).toBeNull();
  });

  it('counts boxes relabelled, removed and drawn, from the first saved state to the last, with the counts before and after', () => {
    const first = correction({
      before: [box('m0', null), box('m1', null), box('m2', 'cola'), box('m3', 'cola')],
      after: [box('m0', 'fanta'), box('m1', null), box('m2', 'cola'), box('m3', 'cola')],
    });
    const second = correction({
      id: 'c2',
      version: 2,
      reviewer: 'key-2',
      created_date: '2026-11-27T11:00:00.000Z',
      before: first.after,
      after: [box('m0', 'fanta'), box('m1', 'fanta'), box('m2', 'cola'), box('n1', 'sprite')],
    });
    const summary = summariseReview([second, first])!;
    expect(summary.reviewer).toBe('key-2');
    expect(summary.reviewed).toBe('2026-11-27T11:00:00.000Z');
    expect(summary.changes).toEqual([
      { kind: 'relabelled', from: null, to: 'fanta', count: 2 },
      { kind: 'removed', from: 'cola', to: null, count: 1 },
      { kind: 'drawn', from: null, to: 'sprite', count: 1 },
    ]);
    expect(summary.before).toEqual([{ sku_id: 'cola', count: 2 }, { sku_id: null, count: 2 }]);
    expect(summary.after).toEqual([{ sku_id: 'fanta', count: 2 }, { sku_id: 'cola', count: 1 }, { sku_id: 'sprite', count: 1 }]);
  });

  it('keeps photos apart: the same box id on two photos is two boxes', () => {
    const a = correction({ before: [box('m0', null)], after: [box('m0', 'cola')] });
    const b = correction({ id: 'c2', image: 'i2', before: [box('m0', 'cola')], after: [] });
    expect(summariseReview([a, b])!.changes).toEqual([
      { kind: 'relabelled', from: null, to: 'cola', count: 1 },
      { kind: 'removed', from: 'cola', to: null, count: 1 },
    ]);
  });
});
