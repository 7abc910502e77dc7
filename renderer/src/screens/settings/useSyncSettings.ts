// Where this laptop syncs: the central's URL and the device key, as stored by the server (the key
// itself is never read back, only whether one is set), and saving them.
import { useCallback, useEffect, useState } from 'react';
import { getSyncSettings, saveSyncSettings } from '../../api/endpoints';
import { describeError } from '../../api/errors';
import type { SyncSettings } from '../../api/types';
import { useSubmission } from '../../components/useSubmission';
import { useSession } from '../../stores/session';
import { useSync } from '../../stores/sync';

export function useSyncSettings() {
  const api = useSession((s) => s.api);
  const refresh = useSync((s) => s.refresh);
  const [settings, setSettings] = useState<SyncSettings | null>(null);
  const [centralUrl, setCentralUrl] = useState('');
  const [deviceKey, setDeviceKey] = useState('');
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { busy, error: saveError, fieldErrors, submit } = useSubmission();
  const load = useCallback(() => {
    setError(null);
    getSyncSettings(api).then(
      (s) => {
        setSettings(s);
        setCentralUrl(s.central_url ?? '');
      },
      (e) => setError(describeError(e)),
    );
    void refresh(api);
  }, [api, refresh]);
  useEffect(load, [load]);

  /** Saves the URL, and the device key when one was typed; the sync state follows. */
  const save = async () => {
    setSaved(false);
    const body = { central_url: centralUrl.trim() || null, ...(deviceKey ? { device_key: deviceKey } : {}) };
    const next = await submit(() => saveSyncSettings(api, body));
    if (next) {
      setSettings(next);
      setDeviceKey('');
      setSaved(true);
      void refresh(api);
    }
  };
  return { settings, centralUrl, setCentralUrl, deviceKey, setDeviceKey, saved, error, load, save, busy, saveError, fieldErrors };
}
