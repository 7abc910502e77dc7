// 3x3 homographies (row-major, 9 numbers) and the boxes they carry: what the bay's registration and
// the merge of facings compute with.

export type H = number[];

export const IDENTITY: H = [1, 0, 0, 0, 1, 0, 0, 0, 1];

export function mul(a: H, b: H): H {
  const o = new Array<number>(9).fill(0);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) for (let k = 0; k < 3; k++) o[r * 3 + c] += a[r * 3 + k] * b[k * 3 + c];
  return o;
}

export const scaling = (sx: number, sy = sx): H => [sx, 0, 0, 0, sy, 0, 0, 0, 1];
export const translation = (x: number, y: number): H => [1, 0, x, 0, 1, y, 0, 0, 1];

export function invert(m: H): H | null {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (!Number.isFinite(det) || Math.abs(det) < 1e-12) return null;
  const inv = [A, -(b * i - c * h), b * f - c * e, B, a * i - c * g, -(a * f - c * d), C, -(a * h - b * g), a * e - b * d];
  return inv.map((v) => v / det);
}

export interface Point {
  x: number;
  y: number;
}

/** The point `h` maps (x, y) to; null where it maps it to infinity or behind the camera. */
export function apply(h: H, x: number, y: number): Point | null {
  const w = h[6] * x + h[7] * y + h[8];
  if (!(w > 1e-9)) return null;
  return { x: (h[0] * x + h[1] * y + h[2]) / w, y: (h[3] * x + h[4] * y + h[5]) / w };
}

export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** The upright box around a box's four mapped corners (null when a corner does not map). */
export function mapBox(h: H, b: Box): Box | null {
  const cs = [apply(h, b.x1, b.y1), apply(h, b.x2, b.y1), apply(h, b.x1, b.y2), apply(h, b.x2, b.y2)];
  if (cs.some((c) => c === null)) return null;
  const p = cs as Point[];
  return { x1: Math.min(...p.map((c) => c.x)), y1: Math.min(...p.map((c) => c.y)), x2: Math.max(...p.map((c) => c.x)), y2: Math.max(...p.map((c) => c.y)) };
}

export const area = (b: Box) => Math.max(0, b.x2 - b.x1) * Math.max(0, b.y2 - b.y1);

export function intersection(a: Box, b: Box): number {
  const w = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const h = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  return w > 0 && h > 0 ? w * h : 0;
}

