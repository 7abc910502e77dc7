// One server read a screen shows: loaded when its key changes, the previous one cancelled.
import { useEffect, useState } from 'react';
import { ApiError } from '../../api/errors';

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  /** Field errors of a 400 (a filter the server refused), by parameter. */
  fields: Record<string, string[]>;
  loading: boolean;
}

export function useLoad<T>(key: string, load: (signal: AbortSignal) => Promise<T>): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ data: undefined, error: null, fields: {}, loading: true });
  useEffect(() => {
    const abort = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    load(abort.signal).then(
      (data) => !abort.signal.aborted && setState({ data, error: null, fields: {}, loading: false }),
      (e: unknown) => {
        if (abort.signal.aborted) return;
        const fields = e instanceof ApiError ? (e.fieldErrors as Record<string, string[]>) : {};
        setState({ data: undefined, error: (e as Error).message || 'The server could not answer.', fields, loading: false });
      },
    );
    return () => abort.abort();
    // The key says everything the read depends on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return state;
}
