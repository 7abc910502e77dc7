// The laptop's sync state for the status bar and Settings: polled from the local server (faster while
// a round runs), and "sync now". Sync itself runs in the server (main/server/sync/engine.ts); the
// window only shows it, so closing a window never stops a push.
import { create } from 'zustand';
import type { ApiClient } from '../api/client';
import { getSyncStatus, runSync } from '../api/endpoints';
import { describeError } from '../api/errors';
import type { SyncStatus } from '../api/types';

export interface SyncViewState {
  status: SyncStatus | null;
  /** Why the status could not be read (the local server is down), or why "sync now" failed. */
  error: string | null;
  running: boolean;
  refresh(api: ApiClient): Promise<void>;
  syncNow(api: ApiClient): Promise<void>;
}

export const useSync = create<SyncViewState>()((set, get) => ({
  status: null,
  error: null,
  running: false,
  async refresh(api) {
    try {
      set({ status: await getSyncStatus(api), error: null });
    } catch (e) {
      set({ error: describeError(e) });
    }
  },
  async syncNow(api) {
    if (get().running) return;
    set({ running: true, error: null });
    // The round may take a while (photos): poll meanwhile so progress shows.
    const timer = setInterval(() => void get().refresh(api), 700);
    try {
      set({ status: await runSync(api) });
    } catch (e) {
      set({ error: describeError(e) });
    } finally {
      clearInterval(timer);
      set({ running: false });
    }
  },
}));

/** How often the status is read: often while something moves, rarely when all is quiet. */
export function pollInterval(status: SyncStatus | null): number {
  if (!status) return 5_000;
  if (status.state === 'syncing' || status.progress !== null) return 1_000;
  if (status.state === 'not_configured' || status.state === 'central') return 30_000;
  return 5_000;
}

const LABELS: Record<SyncStatus['state'], string> = {
  not_configured: 'not set up',
  central: 'central instance',
  idle: 'up to date',
  syncing: 'syncing…',
  offline: 'central unreachable',
  revoked: 'device refused',
  clock_skew: 'clock is off',
  outdated: 'app too old',
  error: 'failed',
};

/** "Sync: up to date", "Sync: 12 changes, 3 photos (14 MB) waiting" — one line for the status bar. */
export function syncSummary(status: SyncStatus | null): string {
  if (!status) return 'Sync: …';
  const waiting: string[] = [];
  if (status.pending_records > 0) waiting.push(`${status.pending_records} change${status.pending_records === 1 ? '' : 's'}`);
  if (status.pending_photos > 0) waiting.push(`${status.pending_photos} photo${status.pending_photos === 1 ? '' : 's'} (${formatBytes(status.pending_photo_bytes)})`);
  const state = `Sync: ${LABELS[status.state]}`;
  return waiting.length > 0 && status.state !== 'central' ? `${state}, ${waiting.join(', ')} waiting` : state;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
