// The zoom and pan of a photo under review: screen = photo * scale + (x, y), in CSS pixels of the
// viewport. `fit` is the scale that shows the whole photo; zoom stays between half of it and 8 screen
// pixels per photo pixel.
export interface View {
  scale: number;
  x: number;
  y: number;
  fit: number;
}

export const MAX_SCALE = 8;

/** The view zoomed by `factor` keeping the photo point under (px, py) (viewport pixels) in place. */
export function zoomAt(view: View, factor: number, px: number, py: number): View {
  const scale = Math.min(Math.max(view.scale * factor, view.fit / 2), Math.max(MAX_SCALE, view.fit));
  const k = scale / view.scale;
  return { ...view, scale, x: px - (px - view.x) * k, y: py - (py - view.y) * k };
}

/** The view centred on a photo rectangle (a box chosen with the keyboard), zoom kept. */
export function centreOn(view: View, box: { x: number; y: number }, width: number, height: number): View {
  return { ...view, x: width / 2 - box.x * view.scale, y: height / 2 - box.y * view.scale };
}
