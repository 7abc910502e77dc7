// One v1.5 record a screen names by id (a planogram's display, the display a new visit is for): read
// by id rather than found in a downloaded list.
import { useEffect, useState } from 'react';
import { getOne, type Collection, type CollectionRecord } from '../api/endpoints';
import { useSession } from './session';

/** The record with this id; undefined while it is being read, null for no id or one that cannot be read. */
export function useRecord<C extends Collection>(collection: C, id: string | null | undefined): CollectionRecord[C] | null | undefined {
  const api = useSession((s) => s.api);
  const [state, setState] = useState<{ id: string; record: CollectionRecord[C] | null } | null>(null);
  useEffect(() => {
    if (!id) return;
    const controller = new AbortController();
    getOne(api, collection, id, controller.signal).then(
      (record) => setState({ id, record }),
      () => {
        if (!controller.signal.aborted) setState({ id, record: null });
      },
    );
    return () => controller.abort();
  }, [api, collection, id]);
  if (!id) return null;
  return state?.id === id ? state.record : undefined;
}
