// What this installation runs (app, models) and where it keeps its data, as the server reports it.
import { useCallback, useEffect, useState } from 'react';
import { getInfo } from '../../api/endpoints';
import { describeError } from '../../api/errors';
import type { AppInfo } from '../../api/types';
import { useSession } from '../../stores/session';

export function useAppInfo() {
  const api = useSession((s) => s.api);
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    setError(null);
    getInfo(api).then(setInfo, (e) => setError(describeError(e)));
  }, [api]);
  useEffect(load, [load]);
  return { info, error, load };
}
