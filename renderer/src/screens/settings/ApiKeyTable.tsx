// The API keys, revoked ones included, each with a button to revoke it.
import type { ApiKeyRecord } from '../../api/types';

export function ApiKeyTable({ keys, onRevoke }: { keys: readonly ApiKeyRecord[]; onRevoke(id: string): void }) {
  return (
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
                <button type="button" className="danger" aria-label={`Revoke key ${k.name || k.public_id}`} onClick={() => onRevoke(k.id)}>
                  Revoke
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
