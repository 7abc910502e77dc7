// One photo under review: the picture with its boxes drawn on an SVG laid over it, both moved by one CSS
// transform (zoom with the wheel or the buttons, pan by dragging the background), so a 12 MP photo is
// decoded once and zooming only recomposes it. The selected box can be dragged or resized by its
// corners; in draw mode a drag on the photo draws a new box. Edits go to the review store on release.
import { useEffect, useLayoutEffect, useRef, useState, type MutableRefObject, type PointerEvent as ReactPointerEvent } from 'react';
import { getUpload } from '../../../api/endpoints';
import { describeError } from '../../../api/errors';
import type { Upload } from '../../../api/types';
import { ApiImage } from '../../../components/ApiImage';
import { ErrorMessage } from '../../../components/StateMessage';
import { useSession } from '../../../stores/session';
import { boxRect, UNKNOWN_COLOUR, type SkuColours } from '../skuColours';
import { acceptKey, photoKey, type EditBox, type EditPhoto, type Rect, type ReviewStore } from './reviewStore';
import { centreOn, zoomAt, type View } from './view';

/** Zoom of the photo on screen around its centre, for the toolbar and the keys: a factor, or fit. */
export type ZoomControl = (zoom: number | 'fit') => void;

type Drag =
  | { kind: 'pan'; x: number; y: number; view: View }
  | { kind: 'draw'; from: { x: number; y: number }; to: { x: number; y: number } }
  | { kind: 'move'; box: string; from: { x: number; y: number }; start: Rect; rect: Rect }
  | { kind: 'resize'; box: string; anchor: { x: number; y: number }; rect: Rect };

const CORNERS = [
  [-1, -1],
  [1, -1],
  [-1, 1],
  [1, 1],
] as const;

/** The rectangle spanned by two corners. */
const spanned = (a: { x: number; y: number }, b: { x: number; y: number }): Rect => ({
  x: (a.x + b.x) / 2,
  y: (a.y + b.y) / 2,
  w: Math.abs(a.x - b.x),
  h: Math.abs(a.y - b.y),
});

export function ReviewPhoto({
  store,
  photo,
  index,
  view,
  onView,
  zoomControl,
  drawing,
  onDrawn,
  nameOf,
  colourOf,
}: {
  store: ReviewStore;
  photo: EditPhoto;
  index: number;
  view: View | null;
  onView(view: View): void;
  zoomControl: MutableRefObject<ZoomControl | null>;
  drawing: boolean;
  onDrawn(): void;
  nameOf(sku: string | null, box?: EditBox): string;
  colourOf: SkuColours;
}) {
  const api = useSession((s) => s.api);
  const key = photoKey(photo.scene, photo.image);
  const selected = store((s) => (s.selected?.photo === key ? s.selected.box : null));
  const accepted = store((s) => s.accepted);
  const [upload, setUpload] = useState<Upload | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [drag, setDrag] = useState<Drag | null>(null);
  const viewport = useRef<HTMLDivElement>(null);
  const viewRef = useRef(view);
  viewRef.current = view;

  useEffect(() => {
    getUpload(api, photo.image).then(setUpload, (e) => setError(describeError(e)));
  }, [api, photo.image]);

  /** The whole photo in the viewport. */
  const fit = (): View | null => {
    const el = viewport.current;
    if (!el || el.clientWidth === 0) return null;
    const scale = Math.min(el.clientWidth / photo.width, el.clientHeight / photo.height);
    return { scale, x: (el.clientWidth - photo.width * scale) / 2, y: (el.clientHeight - photo.height * scale) / 2, fit: scale };
  };
  useLayoutEffect(() => {
    if (!view) {
      const v = fit();
      if (v) onView(v);
    }
  });

  zoomControl.current = (zoom) => {
    const el = viewport.current;
    const v = viewRef.current;
    if (!el || !v) return;
    onView(zoom === 'fit' ? (fit() ?? v) : zoomAt(v, zoom, el.clientWidth / 2, el.clientHeight / 2));
  };

  // A box chosen with the keyboard may lie outside the zoomed view: bring it to the middle.
  const selectedBox = photo.boxes.find((b) => b.id === selected);
  useEffect(() => {
    const el = viewport.current;
    const v = viewRef.current;
    if (!el || !v || !selectedBox) return;
    const left = selectedBox.x * v.scale + v.x;
    const top = selectedBox.y * v.scale + v.y;
    if (left < 0 || top < 0 || left > el.clientWidth || top > el.clientHeight) onView(centreOn(v, selectedBox, el.clientWidth, el.clientHeight));
    // Only when the selection changes, not while the box is dragged.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [selected]);

  // The wheel zooms around the pointer; React's wheel listener is passive and could not stop the page
  // scrolling, so this one is added by hand.
  useEffect(() => {
    const el = viewport.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      const v = viewRef.current;
      if (!v) return;
      e.preventDefault();
      const r = el.getBoundingClientRect();
      onView(zoomAt(v, Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top));
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [onView]);

  /** A pointer position in the photo's pixels. */
  const toPhoto = (e: { clientX: number; clientY: number }) => {
    const r = viewport.current!.getBoundingClientRect();
    const v = viewRef.current!;
    return { x: (e.clientX - r.left - v.x) / v.scale, y: (e.clientY - r.top - v.y) / v.scale };
  };

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
      if (s.draw(key, spanned(drag.from, drag.to))) onDrawn();
    } else if (drag.kind === 'move' || drag.kind === 'resize') {
      // A click on a box only selects it: a box the model drew a hair outside the photo stays as it is.
      const was = photo.boxes.find((b) => b.id === drag.box);
      if (was && (was.x !== drag.rect.x || was.y !== drag.rect.y || was.w !== drag.rect.w || was.h !== drag.rect.h)) s.move(key, drag.box, drag.rect);
    }
    setDrag(null);
  };

  const scale = view?.scale ?? 1;
  const handle = 9 / scale;
  const shown = (b: EditBox): Rect => (drag && (drag.kind === 'move' || drag.kind === 'resize') && drag.box === b.id ? drag.rect : b);
  const unknownCount = photo.boxes.filter((b) => b.sku_id === null).length;

  return (
    <figure className="review-photo">
      <figcaption>
        Photo {index + 1}: {photo.boxes.length} boxes, {unknownCount} without a product
      </figcaption>
      {error && <ErrorMessage message={error} />}
      <div
        ref={viewport}
        className={`review-viewport${drawing ? ' review-drawing' : ''}${drag?.kind === 'pan' ? ' review-panning' : ''}`}
        onPointerDown={(e) => {
          if (!view) return;
          if (drawing && e.button === 0) {
            const p = toPhoto(e);
            start(e, { kind: 'draw', from: p, to: p });
          } else start(e, { kind: 'pan', x: e.clientX, y: e.clientY, view });
        }}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={() => setDrag(null)}
      >
        <div
          className="review-stage"
          style={{ width: photo.width, height: photo.height, transform: view ? `translate(${view.x}px, ${view.y}px) scale(${view.scale})` : 'scale(0)' }}
        >
          {upload ? <ApiImage src={upload.url} alt={`Shelf photo ${index + 1}`} draggable={false} /> : <span className="image-loading" />}
          <svg viewBox={`0 0 ${photo.width} ${photo.height}`} role="group" aria-label={`Boxes on photo ${index + 1}`}>
            {/* The selected box is drawn last, over its neighbours, so its corners can always be grabbed. */}
            {photo.boxes
              .map((b, i) => [b, i] as const)
              .sort(([a], [b]) => Number(a.id === selected) - Number(b.id === selected))
              .map(([b, i]) => {
              const r = boxRect(shown(b));
              const colour = colourOf(b.sku_id);
              const isSelected = selected === b.id;
              const isAccepted = accepted[acceptKey({ photo: key, box: b.id })];
              return (
                <g
                  key={b.id}
                  role="button"
                  tabIndex={-1}
                  aria-label={`Box ${i + 1}: ${nameOf(b.sku_id, b)}${isAccepted ? ', accepted' : ''}`}
                  aria-pressed={isSelected}
                  className={`box${b.sku_id === null ? ' box-unknown' : ''}${isSelected ? ' box-active' : ''}${isAccepted ? ' box-accepted' : ''}`}
                  onPointerDown={(e) => {
                    if (drawing || e.button !== 0) return;
                    store.getState().select({ photo: key, box: b.id });
                    const p = toPhoto(e);
                    start(e, { kind: 'move', box: b.id, from: p, start: { x: b.x, y: b.y, w: b.w, h: b.h }, rect: { x: b.x, y: b.y, w: b.w, h: b.h } });
                  }}
                >
                  <rect
                    {...r}
                    fill={colour}
                    fillOpacity={isSelected ? 0.3 : 0.1}
                    stroke={isSelected ? undefined : colour}
                    strokeDasharray={b.sku_id === null && !b.unknown_on_purpose ? '6 4' : undefined}
                  />
                  {b.sku_id === null && (
                    <text x={r.x + r.width / 2} y={r.y + r.height / 2} fontSize={Math.min(r.width, r.height) * 0.5} textAnchor="middle" dominantBaseline="central" fill={UNKNOWN_COLOUR}>
                      {b.unknown_on_purpose ? '∅' : '?'}
                    </text>
                  )}
                  {isSelected &&
                    !drawing &&
                    CORNERS.map(([dx, dy]) => (
                      <rect
                        key={`${dx}${dy}`}
                        className={`handle handle-${dx * dy > 0 ? 'nwse' : 'nesw'}`}
                        x={r.x + (dx > 0 ? r.width : 0) - handle / 2}
                        y={r.y + (dy > 0 ? r.height : 0) - handle / 2}
                        width={handle}
                        height={handle}
                        onPointerDown={(e) => {
                          const anchor = { x: b.x - (dx * b.w) / 2, y: b.y - (dy * b.h) / 2 };
                          start(e, { kind: 'resize', box: b.id, anchor, rect: { x: b.x, y: b.y, w: b.w, h: b.h } });
                        }}
                      />
                    ))}
                </g>
              );
            })}
            {drag?.kind === 'draw' && <rect className="box-drawing" {...boxRect(spanned(drag.from, drag.to))} />}
          </svg>
        </div>
      </div>
    </figure>
  );
}
