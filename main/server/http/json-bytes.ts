// A JSON body assembled from parts already serialised: one allocation and one copy of each part,
// instead of joining strings and encoding the result again on the way out.

const COMMA = 0x2c;
const OPEN = 0x5b;
const CLOSE = 0x5d;

/** `head` + `[` + the items joined by commas + `]` + `tail`, as UTF-8 bytes. */
export function jsonArrayInto(head: string, items: readonly Buffer[], tail: string): Buffer {
  const headBytes = Buffer.byteLength(head);
  let length = headBytes + 2 + Math.max(items.length - 1, 0) + Buffer.byteLength(tail);
  for (const item of items) length += item.length;
  const out = Buffer.allocUnsafe(length);
  let at = out.write(head, 0);
  out[at++] = OPEN;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out[at++] = COMMA;
    at += items[i].copy(out, at);
  }
  out[at++] = CLOSE;
  out.write(tail, at);
  return out;
}
