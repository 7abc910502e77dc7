// The API keys of this installation, and revoking one. `error` is the panel's one message: what went
// wrong reading, revoking or copying a key.
import { useCallback, useEffect, useState } from 'react';
import { listKeys, revokeKey } from '../../api/endpoints';
import { describeError } from '../../api/errors';
import type { ApiKeyRecord } from '../../api/types';
import { useSession } from '../../stores/session';

export function useApiKeys() {
  const api = useSession((s) => s.api);
  const [keys, setKeys] = useState<ApiKeyRecord[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    listKeys(api).then(setKeys, (e) => setError(describeError(e)));
  }, [api]);
  useEffect(load, [load]);
  const revoke = async (id: string) => {
    setError(null);
    try {
      await revokeKey(api, id);
      load();
    } catch (e) {
      setError(describeError(e));
    }
  };
  return { keys, error, setError, load, revoke };
}
