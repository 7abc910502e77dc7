// The central applies at most PUSHES_AT_ONCE pushes at once per process (routes/app/sync.ts): the
// others wait their turn, in arrival order, so fifty devices pushing together leave the event loop
// and the pool room for the office's reads (docs/api.md, "Mixed load").
import { expect, it } from 'vitest';
import { PUSHES_AT_ONCE, pushTurns } from '../../main/server/routes/app/sync.js';

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
