// The corrections not saved yet, Save, and the question before leaving with some. Each changed scene
// is sent on its own; a conflict (someone else saved the scene since it was read) is told apart, as
// only a reload gets past it.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { saveAnnotations } from '../../../api/endpoints';
import { ApiError, describeError } from '../../../api/errors';
import { guardLeaving } from '../../../navigation/leaveGuard';
import { useSession } from '../../../stores/session';
import { changedPhotos, correctionOf, type ReviewStore } from './reviewStore';

export const UNSAVED_MESSAGE = 'You have unsaved corrections to the boxes. Leave without saving them?';

export interface SaveError {
  message: string;
  conflict: boolean;
}

export function useSaveCorrections(store: ReviewStore, onSaved: (message: string) => void) {
  const api = useSession((s) => s.api);
  const current = store((s) => s.current);
  const saved = store((s) => s.saved);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<SaveError | null>(null);
  /** Keys of the photos with unsaved corrections. */
  const changed = useMemo(() => changedPhotos({ current, saved }), [current, saved]);
  const dirty = changed.length > 0;
  useEffect(() => (dirty ? guardLeaving(() => UNSAVED_MESSAGE) : undefined), [dirty]);

  const save = useCallback(async () => {
    const state = store.getState();
    const toSave = [...new Set(changedPhotos(state).map((k) => state.current[k].scene))];
    if (toSave.length === 0) return;
    setSaving(true);
    setSaveError(null);
    try {
      for (const scene of toSave) {
        const body = correctionOf(store.getState(), scene);
        if (body) store.getState().savedScene(await saveAnnotations(api, scene, body));
      }
      onSaved('Corrections saved: the reports are being computed again.');
    } catch (e) {
      const conflict = e instanceof ApiError && e.status === 409;
      setSaveError({
        conflict,
        message: conflict
          ? `Not saved: someone else saved corrections to this scene since you opened it (${describeError(e)}). Reload to see theirs; your unsaved corrections will be lost.`
          : `Not saved: ${describeError(e)}`,
      });
    } finally {
      setSaving(false);
    }
  }, [api, onSaved, store]);
  const clearSaveError = useCallback(() => setSaveError(null), []);
  return { changed, saving, saveError, save, clearSaveError };
}
