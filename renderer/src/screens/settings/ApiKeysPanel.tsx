// API keys for local integrations: create one (its value is shown once, to copy), list and revoke them.
import { useState } from 'react';
import { createKey } from '../../api/endpoints';
import { describeError } from '../../api/errors';
import type { ApiKeyRecord } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { Empty, ErrorMessage, Loading } from '../../components/StateMessage';
import { useSubmission } from '../../components/useSubmission';
import { useSession } from '../../stores/session';
import { ApiKeyTable } from './ApiKeyTable';
import { useApiKeys } from './useApiKeys';

type KeyRole = ApiKeyRecord['role'];

/** What each role may do (docs/api.md, "Keys and roles"). */
const ROLE_OPTIONS: Array<{ value: KeyRole; label: string }> = [
  { value: 'integration', label: 'Integration: the APIs, reads and writes' },
  { value: 'read-only', label: 'Read-only: the APIs, reads only' },
  { value: 'admin', label: 'Admin: also keys, devices and import' },
];

export function ApiKeysPanel() {
  const api = useSession((s) => s.api);
  const { keys, error, setError, load, revoke } = useApiKeys();
  const [name, setName] = useState('');
  const [role, setRole] = useState<KeyRole>('integration');
  const [created, setCreated] = useState<ApiKeyRecord | null>(null);
  const [copied, setCopied] = useState(false);
  const { busy, error: createError, fieldErrors, submit } = useSubmission();

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
        keys && <ApiKeyTable keys={keys} onRevoke={(id) => void revoke(id)} />
      )}
    </section>
  );
}
