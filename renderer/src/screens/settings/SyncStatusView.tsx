// The laptop's sync state: its message (marked when something needs attention), what waits to go up,
// when it last worked and tries next, progress, "sync now", and what the central refused.
import type { SyncStatus } from '../../api/types';
import { ErrorMessage } from '../../components/StateMessage';
import { useSession } from '../../stores/session';
import { formatBytes, useSync } from '../../stores/sync';
import { Rejections } from './Rejections';

const PROBLEMS: readonly SyncStatus['state'][] = ['offline', 'revoked', 'clock_skew', 'outdated', 'error'];

export function SyncStatusView({ status }: { status: SyncStatus }) {
  const api = useSession((s) => s.api);
  const running = useSync((s) => s.running);
  const syncError = useSync((s) => s.error);
  const syncNow = useSync((s) => s.syncNow);
  const problem = PROBLEMS.includes(status.state);
  return (
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
  );
}
