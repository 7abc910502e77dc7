import type { DraftRepository } from '../stores/newVisit';
import { database, databaseIfExists } from './lazyDatabase';

/** The new-visit draft and its photos in IndexedDB. */
export const dexieDraftRepository: DraftRepository = {
  loadDraft: async (id) => (await databaseIfExists())?.visitDrafts.get(id),
  saveDraft: async (draft) => {
    await (await database()).visitDrafts.put(draft);
  },
  photos: async (draftId) => (await databaseIfExists())?.pendingPhotos.where('draftId').equals(draftId).sortBy('addedAt') ?? [],
  addPhoto: async (photo) => {
    await (await database()).pendingPhotos.put(photo);
  },
  markUploaded: async (photoId, uploadId, quality) => {
    await (await database()).pendingPhotos.update(photoId, quality ? { uploadId, quality } : { uploadId });
  },
  removePhoto: async (photoId) => {
    await (await database()).pendingPhotos.delete(photoId);
  },
  clearDraft: async (draftId) => {
    const db = await database();
    await db.transaction('rw', db.pendingPhotos, db.visitDrafts, async () => {
      await db.pendingPhotos.where('draftId').equals(draftId).delete();
      await db.visitDrafts.delete(draftId);
    });
  },
  rememberRecognition: async (recognition) => {
    await (await database()).recognitions.put(recognition);
  },
};
