// The zoomed pass (detector.ts) enlarges the whole photo by 1.5: a network's intermediate maps grow with
// it, and a MobileNetV2 backbone's widest map at stride 2 is 96 channels. Run whole, the zoomed pass of a
// 12 MP photo took one inference from 490 to 828 MB (models/MODEL_CARD.md). So an input larger than the
// first pass is run in horizontal bands no larger than it: memory is bounded by the first pass whatever
// the photo, and the zoomed pass only keeps small products, which a band's margin sees whole.

export type Band = {
  /** input rows the network sees: [y0, y1) */
  y0: number;
  y1: number;
  /** rows whose box centres this band answers for: [core0, core1); the cores tile the input */
  core0: number;
  core1: number;
};

/**
 * Bands of at most `maxPixels` input pixels over an input of `height` x `width` (all rows multiples of
 * `align`), each seeing `margin` rows beyond its core on the sides where it has a neighbour. One band,
 * the whole input, when it fits. An input too wide for that still gets bands of `2 * margin + align` rows,
 * larger than asked: a band with no core would answer for nothing.
 */
export function planBands(height: number, width: number, maxPixels: number, margin: number, align = 32): Band[] {
  if (height * width <= maxPixels) return [{ y0: 0, y1: height, core0: 0, core1: height }];
  const rows = Math.max(Math.floor(maxPixels / width / align) * align, 2 * margin + align);
  const core = rows - 2 * margin;
  const bands: Band[] = [];
  for (let core0 = 0; core0 < height; core0 += core) {
    const core1 = Math.min(height, core0 + core);
    bands.push({ y0: Math.max(0, core0 - margin), y1: Math.min(height, core1 + margin), core0, core1 });
  }
  return bands;
}

/** Rows [y0, y1) of an NCHW float tensor `width` wide with 3 channels. */
export function sliceRows(tensor: Float32Array, width: number, height: number, y0: number, y1: number): Float32Array {
  const plane = width * height;
  const rows = (y1 - y0) * width;
  const out = new Float32Array(3 * rows);
  for (let c = 0; c < 3; c++) out.set(tensor.subarray(c * plane + y0 * width, c * plane + y1 * width), c * rows);
  return out;
}
