// Always at the bottom: whether the local server answers, whether this computer is online (the app
// works without it), photos still waiting on this computer, and the sync state.
import { liveQuery } from 'dexie';
import { useEffect, useState } from 'react';
import { db } from '../db/database';
import { useSession } from '../stores/session';

export function StatusBar() {
  const connection = useSession((s) => s.connection);
  const browserOnline = useSession((s) => s.browserOnline);
  const [waiting, setWaiting] = useState(0);
  useEffect(() => {
    // Dexie re-runs the query whenever the photos table changes, in this tab or another.
    const subscription = liveQuery(() => db.pendingPhotos.filter((p) => !p.uploadId).count()).subscribe({
      next: setWaiting,
      error: () => undefined,
    });
    return () => subscription.unsubscribe();
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
