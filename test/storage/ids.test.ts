// Record ids (storage/ids.ts): UUIDv7 from pooled random bytes, still strictly increasing within a
// process, in one millisecond too, and still UUIDv7 in layout.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newId } from '../../main/server/storage/ids.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The 48-bit millisecond timestamp at the front of a v7 id. */
const msecsOf = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

function expectIncreasing(ids: string[]): void {
  for (let i = 1; i < ids.length; i++) if (!(ids[i - 1] < ids[i])) expect.fail(`id ${i} ${ids[i]} does not sort after ${ids[i - 1]}`);
}

describe('newId', () => {
  afterEach(() => vi.restoreAllMocks());

  it('gives v7 ids that sort in the order they were made, many more than one random pool', () => {
    const ids = Array.from({ length: 5000 }, () => newId());
    for (const id of ids) expect(id).toMatch(V7);
    expect(new Set(ids).size).toBe(ids.length);
    expectIncreasing(ids);
  });

  it('counts up within one millisecond, and when the clock steps back', () => {
    const at = Date.UTC(2030, 0, 1);
    const clock = vi.spyOn(Date, 'now').mockReturnValue(at);
    const first = Array.from({ length: 2000 }, () => newId());
    clock.mockReturnValue(at - 5);
    const after = Array.from({ length: 100 }, () => newId());
    const ids = [...first, ...after];
    expectIncreasing(ids);
    // The timestamp stays the millisecond's (a counter of 31 random bits does not run out here).
    for (const id of ids) expect(msecsOf(id)).toBe(at);
    // The random tail differs: not a counter alone.
    expect(new Set(ids.map((id) => id.slice(-8))).size).toBeGreaterThan(ids.length - 5);
  });
});
