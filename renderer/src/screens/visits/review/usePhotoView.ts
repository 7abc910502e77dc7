// Where the photo under review sits in its viewport: fitted at first, zoomed by the toolbar, the keys
// and the wheel, and moved to show a box chosen with the keyboard. The view itself is the panel's, so
// each photo keeps its own.
import { useEffect, useLayoutEffect, useRef, type MutableRefObject } from 'react';
import type { EditPhoto } from './reviewStore';
import { centreOn, zoomAt, type View } from './view';

/** Zoom of the photo on screen around its centre, for the toolbar and the keys: a factor, or fit. */
export type ZoomControl = (zoom: number | 'fit') => void;

export function usePhotoView({
  photo,
  view,
  onView,
  zoomControl,
  selected,
}: {
  photo: EditPhoto;
  view: View | null;
  onView(view: View): void;
  zoomControl: MutableRefObject<ZoomControl | null>;
  /** The id of the selected box, when it is on this photo. */
  selected: string | null;
}) {
  const viewport = useRef<HTMLDivElement>(null);
  // Handlers added by hand and the zoom control read the view of the latest render.
  const viewRef = useRef(view);
  viewRef.current = view;

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
  return { viewport, toPhoto };
}
