import type { DraftRepository } from '../stores/newVisit';
import { db } from './database';

/** The new-visit draft and its photos in IndexedDB. */
export const dexieDraftRepository: DraftRepository = {
  loadDraft: (id) => db.visitDrafts.get(id),
  saveDraft: async (draft) => {
    await db.visitDrafts.put(draft);
  },
  photos: (draftId) => db.pendingPhotos.where('draftId').equals(draftId).sortBy('addedAt'),
  addPhoto: async (photo) => {
    await db.pendingPhotos.put(photo);
  },
  markUploaded: async (photoId, uploadId, quality) => {
    await db.pendingPhotos.update(photoId, quality ? { uploadId, quality } : { uploadId });
  },
  removePhoto: (photoId) => db.pendingPhotos.delete(photoId),
  clearDraft: async (draftId) => {
    await db.transaction('rw', db.pendingPhotos, db.visitDrafts, async () => {
      await db.pendingPhotos.where('draftId').equals(draftId).delete();
      await db.visitDrafts.delete(draftId);
    });
  },
  rememberRecognition: async (recognition) => {
    await db.recognitions.put(recognition);
  },
};
