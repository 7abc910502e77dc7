// Nearest neighbours of binary (ORB, 256-bit) descriptors by Hamming distance: the same two nearest
// neighbours as OpenCV's brute-force knnMatch (k = 2). The distance loop is a few lines of WebAssembly
// (below), for its 64-bit popcount instruction: JavaScript has no popcount, and a table or bit-trick
// popcount over 32-bit words made the loop the costliest step of verification (about 0.8 ms per
// query/reference pair; ~4x less here). opencv.js's own matcher is slower than either once its
// results are read back object by object.
import type { LocalFeatures } from './local-features.js';

const BYTES = 32; // one descriptor
// More than any distance (256 bits): the "no neighbour yet" distance.
const FAR = 257;

/*
 * The module, in the text format (assembled by `assemble` below; the opcodes are the spec's,
 * https://webassembly.github.io/spec/core/binary/instructions.html):
 *
 * (func (export "ratioMatches") (param $q i32) (param $nq i32) (param $r i32) (param $nr i32)
 *       (param $out i32) (param $ratio f64) (result i32)
 *   for i in 0..nq:                                  ;; each query descriptor
 *     qa..qd = the query's four 64-bit words
 *     best = second = FAR; bi = 0
 *     for p in r, r + 32, .. r + 32 * nr:            ;; each reference descriptor
 *       d = popcnt(qa ^ [p]) + popcnt(qb ^ [p + 8])
 *       if d < second:                               ;; half the bits already as far as the second
 *         d += popcnt(qc ^ [p + 16]) + popcnt(qd ^ [p + 24])        ;; nearest: neither can change
 *         if d < best: second = best; best = d; bi = (p - r) / 32
 *         else if d < second: second = d
 *     if f64(best) < ratio * f64(second): out[found] = (i, bi); found++
 *   return found
 */
const enum Op {
  block = 0x02, loop = 0x03, if = 0x04, else = 0x05, end = 0x0b, br = 0x0c, brIf = 0x0d,
  get = 0x20, set = 0x21, tee = 0x22, i64Load = 0x29, i32Store = 0x36, i32Const = 0x41,
  i32LtU = 0x49, i32GeU = 0x4f, f64Lt = 0x63, i32Add = 0x6a, i32Sub = 0x6b, i32Shl = 0x74, i32ShrU = 0x76,
  i64Popcnt = 0x7b, i64Add = 0x7c, i64Xor = 0x85, f64Mul = 0xa2, i32WrapI64 = 0xa7, f64ConvertI32U = 0xb8,
}
const VOID = 0x40;
// Parameters 0-5, then the locals.
const [Q, NQ, R, NR, OUT, RATIO] = [0, 1, 2, 3, 4, 5];
const [I, P, END, D, BEST, SECOND, BI, FOUND, QP] = [6, 7, 8, 9, 10, 11, 12, 13, 14]; // i32
const [QA, QB, QC, QD] = [15, 16, 17, 18]; // i64

/** Signed LEB128, for the small constants used here. */
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(byte & 0x40)) || (n === -1 && byte & 0x40)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

function assemble(): Uint8Array {
  const load64 = (addr: number, offset: number) => [Op.get, addr, Op.i64Load, 3, offset];
  const distance = (qw: number, offset: number) => [Op.get, qw, ...load64(P, offset), Op.i64Xor, Op.i64Popcnt];
  const i32 = (n: number) => [Op.i32Const, ...sleb(n)];
  const body = [
    1 + 1, 9, 0x7f, 4, 0x7e, // locals: 9 i32, 4 i64
    Op.block, VOID,
    Op.loop, VOID,
    Op.get, I, Op.get, NQ, Op.i32GeU, Op.brIf, 1,
    Op.get, Q, Op.get, I, ...i32(5), Op.i32Shl, Op.i32Add, Op.set, QP,
    ...load64(QP, 0), Op.set, QA, ...load64(QP, 8), Op.set, QB, ...load64(QP, 16), Op.set, QC, ...load64(QP, 24), Op.set, QD,
    ...i32(FAR), Op.tee, BEST, Op.set, SECOND, ...i32(0), Op.set, BI,
    Op.get, R, Op.tee, P, Op.get, NR, ...i32(5), Op.i32Shl, Op.i32Add, Op.set, END,
    Op.block, VOID,
    Op.loop, VOID,
    Op.get, P, Op.get, END, Op.i32GeU, Op.brIf, 1,
    ...distance(QA, 0), ...distance(QB, 8), Op.i64Add, Op.i32WrapI64, Op.tee, D,
    Op.get, SECOND, Op.i32LtU,
    Op.if, VOID,
    Op.get, D, ...distance(QC, 16), ...distance(QD, 24), Op.i64Add, Op.i32WrapI64, Op.i32Add, Op.tee, D,
    Op.get, BEST, Op.i32LtU,
    Op.if, VOID,
    Op.get, BEST, Op.set, SECOND, Op.get, D, Op.set, BEST,
    Op.get, P, Op.get, R, Op.i32Sub, ...i32(5), Op.i32ShrU, Op.set, BI,
    Op.else,
    Op.get, D, Op.get, SECOND, Op.i32LtU,
    Op.if, VOID, Op.get, D, Op.set, SECOND, Op.end,
    Op.end,
    Op.end,
    Op.get, P, ...i32(BYTES), Op.i32Add, Op.set, P,
    Op.br, 0,
    Op.end,
    Op.end,
    Op.get, BEST, Op.f64ConvertI32U, Op.get, RATIO, Op.get, SECOND, Op.f64ConvertI32U, Op.f64Mul, Op.f64Lt,
    Op.if, VOID,
    Op.get, OUT, Op.get, FOUND, ...i32(3), Op.i32Shl, Op.i32Add, Op.tee, QP, Op.get, I, Op.i32Store, 2, 0,
    Op.get, QP, Op.get, BI, Op.i32Store, 2, 4,
    Op.get, FOUND, ...i32(1), Op.i32Add, Op.set, FOUND,
    Op.end,
    Op.get, I, ...i32(1), Op.i32Add, Op.set, I,
    Op.br, 0,
    Op.end,
    Op.end,
    Op.get, FOUND,
    Op.end,
  ];
  const name = (s: string) => [s.length, ...Buffer.from(s, 'latin1')];
  const uleb = (n: number): number[] => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, ...uleb(n >>> 7)]);
  const section = (id: number, content: number[]) => [id, ...uleb(content.length), ...content];
  const code = [...uleb(body.length), ...body];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 6, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7c, 1, 0x7f]), // type: (i32 x5, f64) -> i32
    ...section(3, [1, 0]), // one function of that type
    ...section(5, [1, 0x00, 1]), // one memory, 1 page to start
    ...section(7, [2, ...name('memory'), 0x02, 0, ...name('ratioMatches'), 0x00, 0]),
    ...section(10, [1, ...code]),
  ]);
}

// Node's global; the project's TypeScript libraries (ES2023, no DOM) do not declare it.
declare const WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (module: object) => { exports: unknown } };

interface Matcher {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  ratioMatches: (q: number, nq: number, r: number, nr: number, out: number, ratio: number) => number;
}

let matcher: Matcher | undefined;

function instance(): Matcher {
  if (!matcher) {
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(assemble()));
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
export function ratioMatches(query: LocalFeatures, ref: LocalFeatures, ratio: number): Int32Array {
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
