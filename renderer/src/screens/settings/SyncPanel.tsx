// Where this laptop syncs, what waits, what the central refused, and "sync now" (docs/sync.md).
import { TextField } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { ErrorMessage } from '../../components/StateMessage';
import { useSync } from '../../stores/sync';
import { Rejections } from './Rejections';
import { SyncStatusView } from './SyncStatusView';
import { useSyncSettings } from './useSyncSettings';

export function SyncPanel() {
  const status = useSync((s) => s.status);
  const { settings, centralUrl, setCentralUrl, deviceKey, setDeviceKey, saved, error, load, save, busy, saveError, fieldErrors } = useSyncSettings();

  if (status?.state === 'central') {
    return (
      <section aria-labelledby="sync-title">
        <h3 id="sync-title">Sync</h3>
        <p>This is the central instance: laptops sync into it. Enrol them with a device key (`npm run cli -- devices create`).</p>
        <Rejections status={status} />
      </section>
    );
  }
  return (
    <section aria-labelledby="sync-title">
      <h3 id="sync-title">Sync</h3>
      <p className="muted">
        Work done here goes up to the central when it answers, and the catalog, planograms and must-have lists come down
        from it. Master data is the central's: with sync set up it is edited there, not on this laptop.
      </p>
      {error && <ErrorMessage message={error} onRetry={load} />}
      <form
        className="inline-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <FormError error={saveError} fieldErrors={fieldErrors} shownFields={['central_url', 'device_key']} />
        <TextField label="Central URL" type="url" placeholder="https://central.example.com" value={centralUrl} onChange={(e) => setCentralUrl(e.target.value)} errors={fieldErrors.central_url} />
        <TextField
          label="Device key"
          type="password"
          autoComplete="off"
          placeholder={settings?.device_key_set ? 'Stored (type to replace)' : 'From the central: devices create'}
          value={deviceKey}
          onChange={(e) => setDeviceKey(e.target.value)}
          errors={fieldErrors.device_key}
        />
        <button type="submit" className="primary" disabled={busy}>
          Save
        </button>
        {saved && <span role="status">Saved.</span>}
      </form>
      {status && <SyncStatusView status={status} />}
    </section>
  );
}
