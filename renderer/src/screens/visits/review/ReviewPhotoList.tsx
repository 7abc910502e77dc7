// The photos under review, to switch between them; a dot marks those with unsaved corrections.
import { photoKey, type EditPhoto } from './reviewStore';

export function ReviewPhotoList({
  photos,
  activeKey,
  changed,
  onShow,
}: {
  photos: readonly EditPhoto[];
  activeKey: string | null;
  /** Keys of the photos with unsaved corrections. */
  changed: readonly string[];
  onShow(key: string): void;
}) {
  if (photos.length <= 1) return null;
  return (
    <ul className="review-photo-list" aria-label="Photos">
      {photos.map((p, i) => {
        const k = photoKey(p.scene, p.image);
        return (
          <li key={k}>
            <button type="button" aria-pressed={k === activeKey} onClick={() => onShow(k)}>
              Photo {i + 1}
              {changed.includes(k) ? ' •' : ''}
            </button>
          </li>
        );
      })}
    </ul>
  );
}
