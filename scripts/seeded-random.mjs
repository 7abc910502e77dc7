// A small seeded random generator (mulberry32): the same numbers for the same seed, so a failing
// test run or a bench's data can be made again from its seed. Shared by test/sync and the benches.

/** Numbers in [0, 1) from `seed`. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
