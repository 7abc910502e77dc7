// Review mode of the visit screen: every photo of every scene with its boxes to correct (change the
// product, mark unknown on purpose, delete, draw, move, resize), undo and redo, keyboard shortcuts, the
// counts as corrected and the recognition errors reported on the scene as a to-do list. A scene joined
// into a bay shows the bay above the photo, its merged facings marked in each photo (ReviewBay.tsx). Nothing reaches
// the server until Save; leaving with unsaved corrections asks first (docs/recognition.md, "Review").
import { useCallback, useEffect, useState } from 'react';
import { getPriceTags } from '../../../api/endpoints';
import type { ScenePriceTags } from '../../../api/types';
import { useSession } from '../../../stores/session';
import { ErrorMessage, Loading } from '../../../components/StateMessage';
import { CorrectedCounts } from './CorrectedCounts';
import { ReportedErrors } from './ReportedErrors';
import { ReviewBay } from './ReviewBay';
import { ReviewPhoto } from './ReviewPhoto';
import { ReviewPhotoList } from './ReviewPhotoList';
import { ReviewToolbar } from './ReviewToolbar';
import { createReviewStore } from './reviewStore';
import { SelectedBox } from './SelectedBox';
import { ShortcutHelp } from './ShortcutHelp';
import { useBoxSuggestions } from './suggestions';
import { useActivePhoto } from './useActivePhoto';
import { useReviewNames } from './useReviewNames';
import { useReviewScenes } from './useReviewScenes';
import { useReviewShortcuts } from './useReviewShortcuts';
import { useReviewTools } from './useReviewTools';
import { useSaveCorrections } from './useSaveCorrections';
import type { View } from './view';

export function ReviewPanel({ scenes, onSaved, onClose }: { scenes: readonly string[]; onSaved(message: string): void; onClose(): void }) {
  const [store] = useState(createReviewStore);
  const { changed, saving, saveError, save, clearSaveError } = useSaveCorrections(store, onSaved);
  const { loading, loadError, messages, load } = useReviewScenes(store, scenes, clearSaveError);
  const { photos, activeKey, photo, selected, selectedPhoto, box, show } = useActivePhoto(store);
  const tools = useReviewTools(store, activeKey, box);
  const suggestions = useBoxSuggestions(selectedPhoto?.scene ?? null, selectedPhoto?.image ?? null, box, tools.picking);
  const { nameOf, colourOf } = useReviewNames(store, messages, suggestions);
  // Each photo keeps its own zoom and position while the reviewer goes back and forth.
  const [views, setViews] = useState<Record<string, View>>({});
  const setView = useCallback((key: string, v: View) => setViews((all) => ({ ...all, [key]: v })), []);
  useReviewShortcuts(store, tools, activeKey, save);
  const priceTags = usePriceTags(photo?.scene ?? null);

  if (loadError) return <ErrorMessage message={`The boxes could not be read: ${loadError}`} onRetry={load} />;
  if (loading) return <Loading what="boxes" />;
  if (!photo || !activeKey) return <p className="muted">No photo of this visit has been recognised yet.</p>;

  return (
    <div className="review">
      <ReviewToolbar store={store} tools={tools} changed={changed.length} saving={saving} onSave={() => void save()} onClose={onClose} />
      {saveError && (
        <div className="state state-error" role="alert">
          <span>{saveError.message}</span>
          {saveError.conflict && (
            <button type="button" onClick={load}>
              Reload
            </button>
          )}
        </div>
      )}
      <ReviewPhotoList photos={photos} activeKey={activeKey} changed={changed} onShow={show} />
      <ReviewBay store={store} scene={photo.scene} photos={photos} nameOf={(sku) => nameOf(sku)} colourOf={colourOf} />
      <div className="review-grid">
        <ReviewPhoto
          key={activeKey}
          store={store}
          photo={photo}
          index={photos.indexOf(photo)}
          view={views[activeKey] ?? null}
          onView={(v) => setView(activeKey, v)}
          zoomControl={tools.zoom}
          drawing={tools.drawing}
          onDrawn={() => {
            tools.setDrawing(false);
            tools.setPicking(true);
          }}
          nameOf={nameOf}
          colourOf={colourOf}
          priceTags={priceTags.get(photo.image) ?? []}
        />
        <div className="review-side">
          <SelectedBox store={store} selected={selected} box={box} tools={tools} suggestions={suggestions} nameOf={nameOf} colourOf={colourOf} />
          <CorrectedCounts store={store} scene={photo.scene} nameOf={nameOf} colourOf={colourOf} />
          <ReportedErrors messages={messages.filter((m) => m.scene === photo.scene)} nameOf={nameOf} />
          <ShortcutHelp />
        </div>
      </div>
    </div>
  );
}

/**
 * The price tags of a scene's photos, drawn beside the boxes so the reviewer sees which facing each
 * prices (they are corrected in the visit's "Price tags" section). None for a scene without them.
 */
type PhotoTags = ScenePriceTags['images'][number]['tags'];

function usePriceTags(scene: string | null): Map<string, PhotoTags> {
  const api = useSession((s) => s.api);
  const [tags, setTags] = useState<Map<string, PhotoTags>>(new Map());
  useEffect(() => {
    if (!scene) return;
    let live = true;
    getPriceTags(api, scene).then(
      (r) => live && setTags(new Map(r.images.map((i) => [i.image, i.tags]))),
      () => live && setTags(new Map()),
    );
    return () => {
      live = false;
    };
  }, [api, scene]);
  return tags;
}
