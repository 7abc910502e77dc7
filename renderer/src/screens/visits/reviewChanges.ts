// What a supervisor's review changed on a visit's photos, from the review's correction records: each
// photo's boxes before its first saved review against its boxes after its last one, matched by box id.
import type { Correction } from '../../api/types';

export type ChangeKind = 'relabelled' | 'removed' | 'drawn';

/** One kind of change to one product (or from one product to another), with how many boxes it took. */
export interface ReviewChange {
  kind: ChangeKind;
  /** The box's product before (relabelled, removed); null: an unknown product. */
  from: string | null;
  /** The box's product after (relabelled, drawn). */
  to: string | null;
  count: number;
}

export interface ReviewSummary {
  /** Who saved the latest review, and when. */
  reviewer: string | null;
  reviewed: string;
  changes: ReviewChange[];
  /** Facing counts of the reviewed photos before the review and after it. */
  before: Array<{ sku_id: string | null; count: number }>;
  after: Array<{ sku_id: string | null; count: number }>;
}

function counts(boxes: readonly { sku_id: string | null }[]): Array<{ sku_id: string | null; count: number }> {
  const by = new Map<string | null, number>();
  for (const b of boxes) by.set(b.sku_id, (by.get(b.sku_id) ?? 0) + 1);
  // Most facings first, unknown products last: as a FACING_COUNT report lists them.
  return [...by]
    .map(([sku_id, count]) => ({ sku_id, count }))
    .sort((a, b) => Number(a.sku_id === null) - Number(b.sku_id === null) || b.count - a.count || String(a.sku_id).localeCompare(String(b.sku_id)));
}

/** The review of a visit's photos, or null when none of them was reviewed. */
export function summariseReview(corrections: readonly Correction[]): ReviewSummary | null {
  if (corrections.length === 0) return null;
  const ordered = [...corrections].sort((a, b) => a.created_date.localeCompare(b.created_date) || a.version - b.version);
  const photos = new Map<string, { first: Correction; last: Correction }>();
  for (const c of ordered) {
    const key = `${c.scene}\n${c.image}`;
    const seen = photos.get(key);
    if (seen) seen.last = c;
    else photos.set(key, { first: c, last: c });
  }
  const tally = new Map<string, ReviewChange>();
  const add = (kind: ChangeKind, from: string | null, to: string | null) => {
    const key = `${kind}\n${from}\n${to}`;
    const seen = tally.get(key);
    if (seen) seen.count++;
    else tally.set(key, { kind, from, to, count: 1 });
  };
  const before = [];
  const after = [];
  for (const { first, last } of photos.values()) {
    before.push(...first.before);
    after.push(...last.after);
    const was = new Map(first.before.map((b) => [b.id, b]));
    const now = new Set(last.after.map((b) => b.id));
    for (const b of last.after) {
      const old = was.get(b.id);
      if (!old) add('drawn', null, b.sku_id);
      else if (old.sku_id !== b.sku_id) add('relabelled', old.sku_id, b.sku_id);
    }
    for (const b of first.before) if (!now.has(b.id)) add('removed', b.sku_id, null);
  }
  const latest = ordered[ordered.length - 1];
  const order: Record<ChangeKind, number> = { relabelled: 0, removed: 1, drawn: 2 };
  return {
    reviewer: latest.reviewer,
    reviewed: latest.created_date,
    changes: [...tally.values()].sort((a, b) => order[a.kind] - order[b.kind] || b.count - a.count),
    before: counts(before),
    after: counts(after),
  };
}
