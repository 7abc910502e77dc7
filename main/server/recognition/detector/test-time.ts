// Test-time augmentation: the detector runs the network on a horizontally mirrored copy of each input too
// and averages the two sets of head outputs (CenterNet's flip test), which steadies the centre peaks and
// box sizes of products in dense rows of look-alikes.
import type { HeadOutputs } from './decode.js';

/** The NCHW tensor mirrored left-right (padding included, so output cells map back exactly). */
export function mirrorTensor(tensor: Float32Array, width: number): Float32Array {
  const out = new Float32Array(tensor.length);
  const rows = tensor.length / width;
  for (let r = 0; r < rows; r++) {
    const o = r * width;
    for (let x = 0; x < width; x++) out[o + x] = tensor[o + width - 1 - x];
  }
  return out;
}

/**
 * Averages the heads of the original input and of its mirror image, read back in the original's frame.
 * A centre at cell x + offset in the mirror is at cell (w - 1 - x) + (1 - offset) in the original.
 */
export function averageWithMirror(a: HeadOutputs, m: HeadOutputs): HeadOutputs {
  const { width: w, height: h } = a;
  const plane = w * h;
  const heatmap = new Float32Array(plane);
  const size = new Float32Array(2 * plane);
  const offset = new Float32Array(2 * plane);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const j = y * w + (w - 1 - x);
      heatmap[i] = (a.heatmap[i] + m.heatmap[j]) / 2;
      size[i] = (a.size[i] + m.size[j]) / 2;
      size[plane + i] = (a.size[plane + i] + m.size[plane + j]) / 2;
      offset[i] = (a.offset[i] + 1 - m.offset[j]) / 2;
      offset[plane + i] = (a.offset[plane + i] + m.offset[plane + j]) / 2;
    }
  }
  return { heatmap, size, offset, width: w, height: h, stride: a.stride };
}
