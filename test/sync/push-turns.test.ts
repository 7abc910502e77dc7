// The central applies at most PUSHES_AT_ONCE pushes at once per process (sync/central/push-turns.ts): the
// others wait their turn, in arrival order, so fifty devices pushing together leave the event loop
// and the pool room for the office's reads (docs/api.md, "Mixed load").
import { expect, it } from 'vitest';
import { PUSHES_AT_ONCE, isOfficeRead, pushTurns } from '../../main/server/sync/central/push-turns.js';

it('gives at most the slots at once; a released turn goes to the longest waiting, in order', async () => {
  expect(PUSHES_AT_ONCE).toBeGreaterThan(0);
  const turn = pushTurns(2);
  const first = await turn();
  const second = await turn();
  const order: number[] = [];
  const third = turn().then((release) => (order.push(3), release));
  const fourth = turn().then((release) => (order.push(4), release));
  await new Promise((r) => setTimeout(r, 20));
  expect(order).toEqual([]);
  first();
  const releaseThird = await third;
  expect(order).toEqual([3]);
  second();
  const releaseFourth = await fourth;
  expect(order).toEqual([3, 4]);
  releaseThird();
  releaseFourth();
  // Both slots free again: two turns at once, a third waits.
  const a = await turn();
  await turn();
  let got = false;
  void turn().then(() => (got = true));
  await new Promise((r) => setTimeout(r, 20));
  expect(got).toBe(false);
  a();
  await new Promise((r) => setTimeout(r, 0));
  expect(got).toBe(true);
});

const pacing = { share: 0.5, readWindowMs: 1000, maxWaitMs: 1000 };
const tick = () => new Promise((r) => setTimeout(r, 0));

it('holds the next push back while reads go on, so pushes take at most their share of the time', async () => {
  const turn = pushTurns(1, pacing);
  turn.readSeen();
  const release = await turn();
  // The push takes 60 ms; at a share of 0.5 the next may start 60 ms after it ends.
  await new Promise((r) => setTimeout(r, 60));
  let startedAt = 0;
  const next = turn().then((r) => ((startedAt = performance.now()), r));
  const released = performance.now();
  release();
  await tick();
  expect(startedAt).toBe(0);
  (await next)();
  // Timers may fire a millisecond early; the push itself took at least 60 ms.
  expect(startedAt - released).toBeGreaterThanOrEqual(55);
});

it('gives the next push its turn at once when no read came within the window, and caps the wait', async () => {
  const quiet = pushTurns(1, pacing);
  const first = await quiet();
  await new Promise((r) => setTimeout(r, 30));
  let got = false;
  const second = quiet().then((r) => ((got = true), r));
  first();
  await tick();
  expect(got).toBe(true);
  (await second)();

  // A long push while reads go on: the wait is capped at maxWaitMs, not the push's time.
  const capped = pushTurns(1, { ...pacing, share: 0.01, maxWaitMs: 40 });
  capped.readSeen();
  const long = await capped();
  await new Promise((r) => setTimeout(r, 30));
  const t = performance.now();
  long();
  (await capped())();
  expect(performance.now() - t).toBeLessThan(500);
});

it('counts the office\'s API reads, not the devices\' sync or writes', () => {
  expect(isOfficeRead('GET', '/api/v1.5/visits/?limit=50')).toBe(true);
  expect(isOfficeRead('HEAD', '/api/v1.5/sku/')).toBe(true);
  expect(isOfficeRead('GET', '/api/app/v1/sync/pull/?since=0')).toBe(false);
  expect(isOfficeRead('POST', '/api/v1.5/visits/')).toBe(false);
  expect(isOfficeRead('GET', '/assets/index.js')).toBe(false);
});

/** A shared turn that records what the process's turns ask of it. */
function recordingShared(fail = false) {
  const calls: string[] = [];
  return {
    calls,
    take: async () => {
      calls.push('take');
      if (fail) throw new Error('connection broke');
    },
    give: (afterMs = 0) => void calls.push(`give ${afterMs > 0 ? 'later' : 'now'}`),
  };
}

it('holds the shared turn through each push while the office reads, and past it by the pacing\'s wait; not without reads', async () => {
  const shared = recordingShared();
  expect(() => pushTurns(2, pacing, shared)).toThrow(RangeError);
  const turn = pushTurns(1, pacing, shared);
  // No reads: this process pushes at full speed, beside the others.
  (await turn())();
  expect(shared.calls).toEqual([]);
  turn.readSeen();
  const release = await turn();
  await new Promise((r) => setTimeout(r, 20));
  release();
  expect(shared.calls).toEqual(['take', 'give later']);
  // A shared turn that cannot be taken leaves the push to this process's turn.
  const broken = recordingShared(true);
  const alone = pushTurns(1, pacing, broken);
  alone.readSeen();
  const r = await alone();
  r();
  expect(broken.calls).toEqual(['take']);
});
