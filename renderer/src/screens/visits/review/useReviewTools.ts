// The reviewer's tools: draw mode, the product picker, the zoom, and what the buttons and keys do to
// the selected box.
import { useEffect, useRef, useState } from 'react';
import type { ZoomControl } from './usePhotoView';
import type { EditBox, ReviewStore } from './reviewStore';

export function useReviewTools(store: ReviewStore, activeKey: string | null, box: EditBox | undefined) {
  const [drawing, setDrawing] = useState(false);
  const [picking, setPicking] = useState(false);
  const zoom = useRef<ZoomControl | null>(null);
  // The picker belongs to a box: it closes when there is none selected.
  useEffect(() => {
    if (!box) setPicking(false);
  }, [box]);

  const acceptAndNext = () => {
    const s = store.getState();
    if (s.selected) s.accept(s.selected.photo, s.selected.box);
    s.step(1, activeKey ?? undefined);
  };
  const removeSelected = () => {
    const s = store.getState();
    if (s.selected) s.remove(s.selected.photo, s.selected.box);
  };
  const unknownSelected = () => {
    const s = store.getState();
    if (s.selected) s.markUnknown(s.selected.photo, s.selected.box);
    setPicking(false);
  };
  return { drawing, setDrawing, picking, setPicking, zoom, acceptAndNext, removeSelected, unknownSelected };
}

export type ReviewTools = ReturnType<typeof useReviewTools>;
