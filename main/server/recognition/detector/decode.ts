// Network output -> boxes. The model is CenterNet-style: a product is a local maximum of the centre heatmap
// (3x3 neighbourhood, which replaces most of NMS), with its size and sub-cell offset read at that cell.
export type Box = { x1: number; y1: number; x2: number; y2: number; score: number };

export type HeadOutputs = {
  heatmap: Float32Array; // [1,1,h,w] probabilities
  size: Float32Array; // [1,2,h,w] box width, height in input pixels
  offset: Float32Array; // [1,2,h,w] centre offset in cells
  width: number; // w
  height: number; // h
  stride: number;
};

export function decodePeaks(out: HeadOutputs, scoreThreshold: number): Box[] {
  const { heatmap, size, offset, width: w, height: h, stride } = out;
  const plane = w * h;
  const boxes: Box[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const s = heatmap[i];
      if (s < scoreThreshold) continue;
      let peak = true;
      for (let dy = -1; dy <= 1 && peak; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w || (dx === 0 && dy === 0)) continue;
          const n = heatmap[yy * w + xx];
          // Ties go to the first cell in scan order, so a flat plateau gives one box, not several.
          if (n > s || (n === s && yy * w + xx < i)) {
            peak = false;
            break;
          }
        }
      }
      if (!peak) continue;
      const cx = (x + offset[i]) * stride;
      const cy = (y + offset[plane + i]) * stride;
      const bw = size[i];
      const bh = size[plane + i];
      boxes.push({ x1: cx - bw / 2, y1: cy - bh / 2, x2: cx + bw / 2, y2: cy + bh / 2, score: s });
    }
  }
  return boxes;
}
