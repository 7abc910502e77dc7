// The photo on screen and the selected box. The photo follows the selection (the next box may be on
// the next photo); otherwise it is the one last shown, else the first.
import { useEffect, useState } from 'react';
import { photoKey, type EditBox, type ReviewStore } from './reviewStore';

export function useActivePhoto(store: ReviewStore) {
  const current = store((s) => s.current);
  const selected = store((s) => s.selected);
  const [active, setActive] = useState<string | null>(null);
  const photos = Object.values(current);
  const activeKey = selected?.photo ?? (active && current[active] ? active : photos[0] ? photoKey(photos[0].scene, photos[0].image) : null);
  useEffect(() => {
    if (selected) setActive(selected.photo);
  }, [selected]);
  const box: EditBox | undefined = selected ? current[selected.photo]?.boxes.find((b) => b.id === selected.box) : undefined;
  /** Shows a photo, leaving the selection (which would otherwise keep its own photo on screen). */
  const show = (key: string) => {
    store.getState().select(null);
    setActive(key);
  };
  return {
    photos,
    activeKey,
    photo: activeKey ? current[activeKey] : undefined,
    selected,
    /** The photo of the selected box. */
    selectedPhoto: selected ? current[selected.photo] : undefined,
    box,
    show,
  };
}
