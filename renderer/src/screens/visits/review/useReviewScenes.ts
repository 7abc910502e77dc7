// The boxes of the scenes under review, read into the review store, and the recognition errors
// reported on them (the reviewer's to-do list).
import { useCallback, useEffect, useState } from 'react';
import { getAnnotations, listRecognitionErrors } from '../../../api/endpoints';
import { describeError } from '../../../api/errors';
import type { SceneMessage } from '../../../api/types';
import { useSession } from '../../../stores/session';
import type { ReviewStore } from './reviewStore';

/** `onLoad` runs as each read starts (a reload after a conflict starts over). */
export function useReviewScenes(store: ReviewStore, scenes: readonly string[], onLoad: () => void) {
  const api = useSession((s) => s.api);
  const [loading, setLoading] = useState(true);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [messages, setMessages] = useState<SceneMessage[]>([]);
  const sceneKey = scenes.join(',');
  const load = useCallback(() => {
    setLoading(true);
    setLoadError(null);
    onLoad();
    const ids = sceneKey.split(',').filter(Boolean);
    Promise.all(ids.map((s) => getAnnotations(api, s))).then(
      (list) => {
        store.getState().load(list);
        setLoading(false);
      },
      (e) => {
        setLoadError(describeError(e));
        setLoading(false);
      },
    );
    Promise.all(ids.map((s) => listRecognitionErrors(api, s))).then((m) => setMessages(m.flat()), () => undefined);
  }, [api, sceneKey, store, onLoad]);
  useEffect(load, [load]);
  return { loading, loadError, messages, load };
}
