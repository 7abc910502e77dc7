// Nearest neighbours of binary (ORB, 256-bit) descriptors by Hamming distance: the same two nearest
// neighbours as OpenCV's brute-force knnMatch (k = 2), for identification's verification
// (identification/local-features.ts) and the bay join (bay/register.ts). The distance loop is
// WebAssembly (hamming.wat, assembled into hamming.wasm by `npm run build:wasm`), for its 64-bit
// popcount instruction: JavaScript has no popcount, and a table or bit-trick popcount over 32-bit words
// made the loop the costliest step of verification (about 0.8 ms per query/reference pair; ~4x less
// here). opencv.js's own matcher is slower than either once its results are read back object by object
// (a 12 MP bay photo pair's 1600 against 1600 descriptors: docs/recognition.md, Bays).
import { readFileSync } from 'node:fs';

/** Descriptors packed one after another, 32 bytes each. */
export interface Descriptors {
  count: number;
  descriptors: Uint8Array;
}

const BYTES = 32; // one descriptor

// Node's global; the project's TypeScript libraries (ES2023, no DOM) do not declare it.
declare const WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (module: object) => { exports: unknown } };

interface Matcher {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  ratioMatches: (q: number, nq: number, r: number, nr: number, out: number, ratio: number) => number;
}

let matcher: Matcher | undefined;

function instance(): Matcher {
  if (!matcher) {
    // Beside this module in the source tree and in dist/ (scripts/build.mjs copies it).
    const bytes = readFileSync(new URL('./hamming.wasm', import.meta.url));
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes));
    matcher = exports as unknown as Matcher;
  }
  return matcher;
}

/**
 * Lowe's ratio test: for each query descriptor (in order) whose nearest reference descriptor is
 * closer than `ratio` times the second nearest, the pair [query index, reference index]. Exactly the
 * matches of OpenCV's knnMatch(k = 2) filtered by `best.distance < ratio * second.distance`: a tie
 * for the nearest fails the test whichever index is taken.
 */
export function ratioMatches(query: Descriptors, ref: Descriptors, ratio: number): Int32Array {
  if (ref.count < 2 || query.count === 0) return new Int32Array(0);
  const m = instance();
  const qBytes = query.count * BYTES;
  const rBytes = ref.count * BYTES;
  const need = qBytes + rBytes + query.count * 8;
  const have = m.memory.buffer.byteLength;
  if (need > have) m.memory.grow(Math.ceil((need - have) / 65536));
  const heap = new Uint8Array(m.memory.buffer);
  heap.set(query.descriptors.subarray(0, qBytes), 0);
  heap.set(ref.descriptors.subarray(0, rBytes), qBytes);
  const found = m.ratioMatches(0, query.count, qBytes, ref.count, qBytes + rBytes, ratio);
  return new Int32Array(m.memory.buffer, qBytes + rBytes, 2 * found).slice();
}
