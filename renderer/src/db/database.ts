// What belongs to the screen itself, kept in IndexedDB: photos added to a visit that are not uploaded
// yet (a reload or a crash must not lose them), the unsaved new-visit draft, view preferences and a
// cache of lists so they open instantly and stay readable offline. The server is the source of truth.
import Dexie, { liveQuery, type EntityTable } from 'dexie';
import type { PhotoQuality } from '../api/types';
import { DATABASE_NAME } from './lazyDatabase';

export interface PendingPhoto {
  id: string;
  draftId: string;
  name: string;
  type: string;
  blob: Blob;
  addedAt: number;
  /** Set once the photo reached the server; cleared photos are deleted after recognition starts. */
  uploadId?: string;
  /** The server's checks of the photo, answered with its upload. */
  quality?: PhotoQuality;
}

export interface VisitDraft {
  id: string;
  display: string;
  shop: string;
  agent: string;
  /** The visit created for this draft, so a retry after a failed upload reuses it. */
  visitId?: string;
  updatedAt: number;
}

/** A recognition this renderer started: the scene id is needed to report errors from its boxes. */
export interface StartedRecognition {
  id: string;
  visit: string;
  scene: string;
  reports: Record<string, string>;
  startedAt: number;
}

export interface Preference {
  key: string;
  value: unknown;
}

export interface CachedList {
  key: string;
  items: unknown[];
  savedAt: number;
}

export class RendererDatabase extends Dexie {
  pendingPhotos!: EntityTable<PendingPhoto, 'id'>;
  visitDrafts!: EntityTable<VisitDraft, 'id'>;
  recognitions!: EntityTable<StartedRecognition, 'id'>;
  preferences!: EntityTable<Preference, 'key'>;
  cachedLists!: EntityTable<CachedList, 'key'>;

  constructor(name = DATABASE_NAME) {
    super(name);
    this.version(1).stores({
      pendingPhotos: 'id, draftId, addedAt',
      visitDrafts: 'id, updatedAt',
      recognitions: 'id, visit, scene',
      preferences: 'key',
      cachedLists: 'key',
    });
  }
}

export const db = new RendererDatabase();

/** Calls `next` with the number of photos not uploaded yet, and again whenever it changes (in any tab). */
export function watchWaitingPhotos(next: (count: number) => void): { unsubscribe(): void } {
  return liveQuery(() => db.pendingPhotos.filter((p) => !p.uploadId).count()).subscribe({ next, error: () => undefined });
}
