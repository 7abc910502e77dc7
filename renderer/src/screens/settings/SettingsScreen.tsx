// Settings: API keys for local integrations (the key is shown once, at creation), the data folder
// and the model this installation runs.
import { useCallback, useEffect, useState } from 'react';
import { createKey, getInfo, listKeys, revokeKey } from '../../api/endpoints';
import { describeError } from '../../api/errors';
import type { ApiKeyRecord, AppInfo } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { Empty, ErrorMessage, Loading } from '../../components/StateMessage';
import { useSubmission } from '../../components/useSubmission';
import { useSession } from '../../stores/session';

export function SettingsScreen() {
  return (
    <section aria-labelledby="settings-title" className="settings">
      <h2 id="settings-title">Settings</h2>
      <AppInfoPanel />
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
  const token = useSession((s) => s.credentials.token);
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
                    {token?.startsWith(`${k.public_id}.`) && !k.revoked_date && <span className="muted"> (used by this window)</span>}
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
