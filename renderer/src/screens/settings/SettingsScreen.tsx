// Settings: the data folder and the models this installation runs, sync with the central, and API
// keys for local integrations (the key is shown once, at creation).
import { useCallback, useEffect, useState } from 'react';
import { createKey, getInfo, getSyncSettings, listKeys, revokeKey, saveSyncSettings } from '../../api/endpoints';
import { describeError } from '../../api/errors';
import type { ApiKeyRecord, AppInfo, SyncSettings, SyncStatus } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { Empty, ErrorMessage, Loading } from '../../components/StateMessage';
import { useSubmission } from '../../components/useSubmission';
import { useSession } from '../../stores/session';
import { formatBytes, useSync } from '../../stores/sync';

export function SettingsScreen() {
  return (
    <section aria-labelledby="settings-title" className="settings">
      <h2 id="settings-title">Settings</h2>
      <AppInfoPanel />
      <SyncPanel />
      <ApiKeysPanel />
    </section>
  );
}

function infoValue(info: AppInfo, key: keyof AppInfo): string {
  return info[key] ?? '—';
}

function AppInfoPanel() {
  const api = useSession((s) => s.api);
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    setError(null);
    getInfo(api).then(setInfo, (e) => setError(describeError(e)));
  }, [api]);
  useEffect(load, [load]);
  const bridge = window.shelfAudit;
  return (
    <section aria-labelledby="info-title">
      <h3 id="info-title">This installation</h3>
      {error && <ErrorMessage message={error} onRetry={load} />}
      {!info && !error && <Loading what="installation details" />}
      {info && (
        <dl className="info-list">
          <dt>App version</dt>
          <dd>{infoValue(info, 'app_version')}</dd>
          <dt>Detector model</dt>
          <dd>{infoValue(info, 'model_version')}</dd>
          <dt>Product embedder</dt>
          <dd>{infoValue(info, 'embedder_version')}</dd>
          <dt>Data folder</dt>
          <dd>
            <code>{infoValue(info, 'data_dir')}</code>
            {bridge?.revealDataFolder && (
              <button type="button" onClick={() => void bridge.revealDataFolder()}>
                Show folder
              </button>
            )}
          </dd>
        </dl>
      )}
    </section>
  );
}

type KeyRole = ApiKeyRecord['role'];

/** What each role may do (docs/api.md, "Keys and roles"). */
const ROLE_OPTIONS: Array<{ value: KeyRole; label: string }> = [
  { value: 'integration', label: 'Integration: the APIs, reads and writes' },
  { value: 'read-only', label: 'Read-only: the APIs, reads only' },
  { value: 'admin', label: 'Admin: also keys, devices and import' },
];

function ApiKeysPanel() {
  const api = useSession((s) => s.api);
  const [keys, setKeys] = useState<ApiKeyRecord[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [role, setRole] = useState<KeyRole>('integration');
  const [created, setCreated] = useState<ApiKeyRecord | null>(null);
  const [copied, setCopied] = useState(false);
  const { busy, error: createError, fieldErrors, submit } = useSubmission();
  const load = useCallback(() => {
    listKeys(api).then(setKeys, (e) => setError(describeError(e)));
  }, [api]);
  useEffect(load, [load]);

  return (
    <section aria-labelledby="keys-title">
      <h3 id="keys-title">API keys</h3>
      <p className="muted">
        Local integrations call this computer's API with a key, sent as <code>Authorization: Token KEY</code>.
      </p>
      <form
        className="inline-form"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          setCopied(false);
          const key = await submit(() => createKey(api, name, role));
          if (key) {
            setCreated(key);
            setName('');
            load();
          }
        }}
      >
        <FormError error={createError} fieldErrors={fieldErrors} shownFields={['name', 'role']} />
        <TextField label="Key name" value={name} onChange={(e) => setName(e.target.value)} errors={fieldErrors.name} />
        <SelectField
          label="Role"
          value={role}
          options={ROLE_OPTIONS}
          placeholder="Integration (default)"
          onChange={(e) => setRole((e.target.value || 'integration') as KeyRole)}
          errors={fieldErrors.role}
        />
        <button type="submit" className="primary" disabled={busy}>
          Create key
        </button>
      </form>
      {created?.key && (
        <div className="new-key" role="region" aria-label="New API key">
          <p>Copy this key now: it is not shown again.</p>
          <code aria-label="API key value">{created.key}</code>
          <button
            type="button"
            onClick={async () => {
              try {
                await navigator.clipboard.writeText(created.key!);
                setCopied(true);
              } catch (e) {
                setError(`Copy failed: ${describeError(e)}`);
              }
            }}
          >
            {copied ? 'Copied' : 'Copy key'}
          </button>
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
      {error && <ErrorMessage message={error} onRetry={load} />}
      {keys === null && !error ? (
        <Loading what="API keys" />
      ) : keys && keys.length === 0 ? (
        <Empty>No API keys.</Empty>
      ) : (
        keys && (
          <table aria-label="API keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key id</th>
                <th scope="col">Role</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id}>
                  <td>
                    {k.name || '(unnamed)'}
                    {/* Revoking the key this page uses would lock the page out: say which one it is. */}
                    {k.current && !k.revoked_date && <span className="muted"> (used by this window)</span>}
                  </td>
                  <td>
                    <code>{k.public_id}</code>
                  </td>
                  <td>{k.role}</td>
                  <td>{k.created_date ? new Date(k.created_date).toLocaleString() : '—'}</td>
                  <td>{k.last_used_date ? new Date(k.last_used_date).toLocaleString() : 'never'}</td>
                  <td>
                    {k.revoked_date ? (
                      <span className="badge">Revoked</span>
                    ) : (
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Revoke key ${k.name || k.public_id}`}
                      onClick={async () => {
                        setError(null);
                        try {
                          await revokeKey(api, k.id);
                          load();
                        } catch (e) {
                          setError(describeError(e));
                        }
                      }}
                    >
                      Revoke
                    </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      )}
    </section>
  );
}

/** Where this laptop syncs, what waits, what the central refused, and "sync now" (docs/sync.md). */
function SyncPanel() {
  const api = useSession((s) => s.api);
  const status = useSync((s) => s.status);
  const running = useSync((s) => s.running);
  const syncError = useSync((s) => s.error);
  const refresh = useSync((s) => s.refresh);
  const syncNow = useSync((s) => s.syncNow);
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

  if (status?.state === 'central') {
    return (
      <section aria-labelledby="sync-title">
        <h3 id="sync-title">Sync</h3>
        <p>This is the central instance: laptops sync into it. Enrol them with a device key (`npm run cli -- devices create`).</p>
        <Rejections status={status} />
      </section>
    );
  }
  const problem = status && ['offline', 'revoked', 'clock_skew', 'outdated', 'error'].includes(status.state);
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
        onSubmit={async (e) => {
          e.preventDefault();
          setSaved(false);
          const body = { central_url: centralUrl.trim() || null, ...(deviceKey ? { device_key: deviceKey } : {}) };
          const next = await submit(() => saveSyncSettings(api, body));
          if (next) {
            setSettings(next);
            setDeviceKey('');
            setSaved(true);
            void refresh(api);
          }
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
      {status && (
        <>
          <p className={`sync-message${problem ? ' sync-problem' : ''}`} role="status" aria-label="Sync state">
            {status.message}
          </p>
          <dl className="sync-state" aria-label="Sync details">
            <dt>Changes waiting</dt>
            <dd>{status.pending_records}</dd>
            <dt>Photos waiting</dt>
            <dd>
              {status.pending_photos} ({formatBytes(status.pending_photo_bytes)})
            </dd>
            <dt>Last success</dt>
            <dd>{status.last_success ? new Date(status.last_success).toLocaleString() : 'never'}</dd>
            <dt>Next attempt</dt>
            <dd>{status.next_attempt ? new Date(status.next_attempt).toLocaleTimeString() : '—'}</dd>
          </dl>
          {status.progress !== null && <progress max={1} value={status.progress} aria-label="Photos going up" />}
          {status.state !== 'not_configured' && (
            <button type="button" disabled={running || status.state === 'syncing'} onClick={() => void syncNow(api)}>
              {running ? 'Syncing…' : 'Sync now'}
            </button>
          )}
          {syncError && <ErrorMessage message={syncError} />}
          <Rejections status={status} />
        </>
      )}
    </section>
  );
}

/** Changes the central refused for good: shown, never silently dropped (they do not block the queue). */
function Rejections({ status }: { status: SyncStatus }) {
  if (status.rejections.length === 0) return null;
  return (
    <table aria-label="Refused changes">
      <caption>Changes the central refused</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Record</th>
          <th scope="col">Why</th>
        </tr>
      </thead>
      <tbody>
        {status.rejections.map((r) => (
          <tr key={`${r.device ?? ''}:${r.change_number}:${r.entity}:${r.record_id}`}>
            <td>{new Date(r.created_date).toLocaleString()}</td>
            <td>
              {r.entity} <code>{r.record_id}</code>
            </td>
            <td>{r.reason}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
