// Dragging on the photo under review: the background pans, the selected box moves or is resized by
// its corners, and in draw mode a drag draws a new box. The box follows the pointer here; the review
// store gets the edit on release, as one step of undo.
import { useState, type PointerEvent as ReactPointerEvent, type RefObject } from 'react';
import type { EditBox, Rect, ReviewStore } from './reviewStore';
import type { View } from './view';

type Point = { x: number; y: number };

export type Drag =
  | { kind: 'pan'; x: number; y: number; view: View }
  | { kind: 'draw'; from: Point; to: Point }
  | { kind: 'move'; box: string; from: Point; start: Rect; rect: Rect }
  | { kind: 'resize'; box: string; anchor: Point; rect: Rect };

/** The rectangle spanned by two corners. */
export const spanned = (a: Point, b: Point): Rect => ({
  x: (a.x + b.x) / 2,
  y: (a.y + b.y) / 2,
  w: Math.abs(a.x - b.x),
  h: Math.abs(a.y - b.y),
});

export function usePhotoDrag({
  store,
  photoKey,
  boxes,
  viewport,
  toPhoto,
  onView,
  onDrawn,
}: {
  store: ReviewStore;
  photoKey: string;
  boxes: readonly EditBox[];
  viewport: RefObject<HTMLDivElement | null>;
  toPhoto(e: { clientX: number; clientY: number }): Point;
  onView(view: View): void;
  onDrawn(): void;
}) {
  const [drag, setDrag] = useState<Drag | null>(null);

  const start = (e: ReactPointerEvent, next: Drag) => {
    if (e.button !== 0 && next.kind !== 'pan') return;
    e.stopPropagation();
    e.preventDefault();
    // Moves outside the photo keep reaching it (a pointer a script made up has nothing to capture).
    try {
      viewport.current?.setPointerCapture(e.pointerId);
    } catch {
      /* no such pointer */
    }
    setDrag(next);
  };

  const onPointerMove = (e: ReactPointerEvent) => {
    if (!drag) return;
    const p = toPhoto(e);
    if (drag.kind === 'pan') onView({ ...drag.view, x: drag.view.x + e.clientX - drag.x, y: drag.view.y + e.clientY - drag.y });
    else if (drag.kind === 'draw') setDrag({ ...drag, to: p });
    else if (drag.kind === 'move') setDrag({ ...drag, rect: { ...drag.start, x: drag.start.x + p.x - drag.from.x, y: drag.start.y + p.y - drag.from.y } });
    else setDrag({ ...drag, rect: spanned(drag.anchor, p) });
  };

  const onPointerUp = () => {
    if (!drag) return;
    const s = store.getState();
    if (drag.kind === 'draw') {
      if (s.draw(photoKey, spanned(drag.from, drag.to))) onDrawn();
    } else if (drag.kind === 'move' || drag.kind === 'resize') {
      // A click on a box only selects it: a box the model drew a hair outside the photo stays as it is.
      const was = boxes.find((b) => b.id === drag.box);
      if (was && (was.x !== drag.rect.x || was.y !== drag.rect.y || was.w !== drag.rect.w || was.h !== drag.rect.h)) s.move(photoKey, drag.box, drag.rect);
    }
    setDrag(null);
  };

  /** Where a box is drawn: where the pointer has it while it is moved or resized. */
  const shown = (b: EditBox): Rect => (drag && (drag.kind === 'move' || drag.kind === 'resize') && drag.box === b.id ? drag.rect : b);

  return { drag, start, onPointerMove, onPointerUp, cancel: () => setDrag(null), shown };
}
