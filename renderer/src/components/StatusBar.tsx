// Always at the bottom: whether the local server answers, whether this computer is online (the app
// works without it), photos still waiting on this computer, and the sync state.
import { useEffect, useState } from 'react';
import { db } from '../db/database';
import { useSession } from '../stores/session';

export function StatusBar() {
  const connection = useSession((s) => s.connection);
  const browserOnline = useSession((s) => s.browserOnline);
  const [waiting, setWaiting] = useState(0);
  useEffect(() => {
    let live = true;
    const count = () =>
      db.pendingPhotos
        .filter((p) => !p.uploadId)
        .count()
        .then((n) => live && setWaiting(n))
        .catch(() => undefined);
    void count();
    // Dexie has no cross-table change feed without an add-on; a light poll is enough for a counter.
    const timer = setInterval(count, 3000);
    return () => {
      live = false;
      clearInterval(timer);
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
      <span>Sync: not set up</span>
    </footer>
  );
}
