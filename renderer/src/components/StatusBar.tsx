// Always at the bottom: whether the local server answers, whether this computer is online (the app
// works without it), photos still waiting on this computer, and the sync state.
import { useEffect, useState } from 'react';
import { useSession } from '../stores/session';
import { pollInterval, syncSummary, useSync } from '../stores/sync';

export function StatusBar() {
  const connection = useSession((s) => s.connection);
  const browserOnline = useSession((s) => s.browserOnline);
  const api = useSession((s) => s.api);
  const sync = useSync((s) => s.status);
  const running = useSync((s) => s.running);
  const refresh = useSync((s) => s.refresh);
  const syncNow = useSync((s) => s.syncNow);
  const [waiting, setWaiting] = useState(0);
  const every = pollInterval(sync);
  useEffect(() => {
    void refresh(api);
  }, [api, refresh]);
  // Polled at the pace the last status asks for; a new pace does not read it again at once.
  useEffect(() => {
    const timer = setInterval(() => void refresh(api), every);
    return () => clearInterval(timer);
  }, [api, refresh, every]);
  useEffect(() => {
    // Dexie re-runs the count whenever the photos table changes, in this tab or another. IndexedDB
    // and its code load once the first screen is up: the count is not what the app opens for.
    let live = true;
    let subscription: { unsubscribe(): void } | undefined;
    const start = () =>
      void import('../db/database').then(
        ({ watchWaitingPhotos }) => {
          if (live) subscription = watchWaitingPhotos(setWaiting);
        },
        () => undefined,
      );
    const idle = typeof window.requestIdleCallback === 'function' ? window.requestIdleCallback(start, { timeout: 2000 }) : window.setTimeout(start, 500);
    return () => {
      live = false;
      if (typeof window.cancelIdleCallback === 'function') window.cancelIdleCallback(idle);
      else window.clearTimeout(idle);
      subscription?.unsubscribe();
    };
  }, []);
  const server =
    connection === 'offline'
      ? 'Local server unreachable'
      : connection === 'unauthorized'
        ? 'API key rejected'
        : connection === 'online'
          ? 'Local server connected'
          : 'Connecting…';
  return (
    <footer className="status-bar" role="contentinfo" aria-label="Status">
      <span className={`status-dot status-${connection}`} aria-hidden="true" />
      <span role="status" aria-live="polite">
        {server}
      </span>
      <span>{browserOnline ? 'Online' : 'Offline: working locally'}</span>
      <span>{waiting > 0 ? `${waiting} photo${waiting === 1 ? '' : 's'} not uploaded` : 'All photos uploaded'}</span>
      <span className="sync-summary" title={sync?.message}>
        {syncSummary(sync)}
      </span>
      {sync?.progress != null && (
        <progress className="sync-progress" max={1} value={sync.progress} aria-label="Photos going up" />
      )}
      {sync && sync.state !== 'not_configured' && sync.state !== 'central' && (
        <button type="button" className="link-button" disabled={running || sync.state === 'syncing'} onClick={() => void syncNow(api)}>
          Sync now
        </button>
      )}
    </footer>
  );
}
