// The "new visit" flow: a draft (display, shop, agent) and its photos, kept in IndexedDB until they
// are uploaded so a reload or a crash loses nothing, then: create the visit, upload each photo
// (remembering what is already uploaded, so a retry after a failure resumes), start recognition.
// Photos are uploaded as they are added when the server is at hand, so each comes back with the
// server's quality checks while the auditor still stands at the shelf; one marked "retake" can be
// replaced in place, and starting with one still marked so asks for a reason.
import { create } from 'zustand';
import type { ApiClient } from '../api/client';
import { createOne, recognize, uploadImage } from '../api/endpoints';
import { describeError } from '../api/errors';
import type { Display, PhotoQuality, RecognizeResponse, ReportType } from '../api/types';
import type { PendingPhoto, StartedRecognition, VisitDraft } from '../db/database';

export interface DraftRepository {
  loadDraft(id: string): Promise<VisitDraft | undefined>;
  saveDraft(draft: VisitDraft): Promise<void>;
  photos(draftId: string): Promise<PendingPhoto[]>;
  addPhoto(photo: PendingPhoto): Promise<void>;
  markUploaded(photoId: string, uploadId: string, quality?: PhotoQuality): Promise<void>;
  removePhoto(photoId: string): Promise<void>;
  /** Called once recognition has started: the photos live on the server now. */
  clearDraft(draftId: string): Promise<void>;
  rememberRecognition(recognition: StartedRecognition): Promise<void>;
}

export type Phase =
  | { step: 'editing' }
  | { step: 'creating-visit' }
  | { step: 'uploading'; done: number; total: number }
  | { step: 'starting-recognition' }
  | { step: 'needs-reason'; photos: number }
  | { step: 'started'; visit: string }
  | { step: 'failed'; message: string };

export interface NewVisitState {
  draft: VisitDraft;
  photos: PendingPhoto[];
  loaded: boolean;
  phase: Phase;
  load(): Promise<void>;
  update(patch: Partial<Pick<VisitDraft, 'display' | 'shop' | 'agent' | 'visitId'>>): Promise<void>;
  /** Keeps the photos here and, with `api`, uploads each at once for its quality checks. */
  addPhotos(files: File[], api?: ApiClient): Promise<void>;
  /** Replaces a photo by a new one at the same place in the scene, checked likewise. */
  retakePhoto(id: string, file: File, api?: ApiClient): Promise<void>;
  removePhoto(id: string): Promise<void>;
  /** `reason`: why photos marked retake are kept; asked for (phase needs-reason) when there are some. */
  start(api: ApiClient, display: Display | null, reason?: string): Promise<string | null>;
}

export const CURRENT_DRAFT = 'current';

/** Reports asked for: the compliance ones only when the display has what they compare against. */
export function reportTypesFor(display: Display | null): ReportType[] {
  const types: ReportType[] = ['FACING_COUNT', 'REALOGRAM', 'SHARE_OF_SPACE', 'PANORAMA', 'PRICE_TAGS', 'PRICE_COMPLIANCE'];
  if (display?.planogram) types.push('PLANOGRAM_COMPLIANCE');
  if (display?.musthavelist) types.push('MHL_COMPLIANCE');
  return types;
}

export function createNewVisitStore(repo: DraftRepository, newId: () => string = () => crypto.randomUUID()) {
  const emptyDraft = (): VisitDraft => ({ id: CURRENT_DRAFT, display: '', shop: '', agent: '', updatedAt: Date.now() });
  return create<NewVisitState>()((set, get) => {
  /** Uploads a photo for its checks; a failure leaves it to be uploaded when recognition starts. */
  async function check(api: ApiClient, photo: PendingPhoto): Promise<void> {
    try {
      const answer = await uploadImage(api, photo.blob, photo.name);
      await repo.markUploaded(photo.id, answer.id, answer.quality);
      set({ photos: get().photos.map((p) => (p.id === photo.id ? { ...p, uploadId: answer.id, quality: answer.quality } : p)) });
    } catch {
      // Offline or refused: the photo stays here, unchecked; start() uploads it and says what failed.
    }
  }
  return {
    draft: emptyDraft(),
    photos: [],
    loaded: false,
    phase: { step: 'editing' },

    async load() {
      const draft = (await repo.loadDraft(CURRENT_DRAFT)) ?? emptyDraft();
      const photos = await repo.photos(CURRENT_DRAFT);
      const phase = get().phase.step === 'started' ? { step: 'editing' as const } : get().phase;
      set({ draft, photos, loaded: true, phase });
    },

    async update(patch) {
      const draft = { ...get().draft, ...patch, updatedAt: Date.now() };
      set({ draft });
      await repo.saveDraft(draft);
    },

    async addPhotos(files, api) {
      const added: PendingPhoto[] = files.map((file, i) => ({
        id: newId(),
        draftId: CURRENT_DRAFT,
        name: file.name,
        type: file.type,
        blob: file,
        addedAt: Date.now() + i,
      }));
      try {
        for (const photo of added) await repo.addPhoto(photo);
        await repo.saveDraft(get().draft);
      } catch (error) {
        // E.g. the disk quota: say so rather than showing photos a reload would lose.
        set({ phase: { step: 'failed', message: `The photos could not be kept on this computer: ${describeError(error)}` } });
        return;
      }
      set({ photos: [...get().photos, ...added], phase: { step: 'editing' } });
      if (api) for (const photo of added) await check(api, photo);
    },

    async retakePhoto(id, file, api) {
      const old = get().photos.find((p) => p.id === id);
      if (!old) return;
      const photo: PendingPhoto = { id: newId(), draftId: CURRENT_DRAFT, name: file.name, type: file.type, blob: file, addedAt: old.addedAt };
      try {
        await repo.addPhoto(photo);
        await repo.removePhoto(id);
      } catch (error) {
        set({ phase: { step: 'failed', message: `The photo could not be kept on this computer: ${describeError(error)}` } });
        return;
      }
      set({ photos: get().photos.map((p) => (p.id === id ? photo : p)), phase: { step: 'editing' } });
      if (api) await check(api, photo);
    },

    async removePhoto(id) {
      await repo.removePhoto(id);
      set({ photos: get().photos.filter((p) => p.id !== id) });
    },

    async start(api, display, reason) {
      const { draft, photos } = get();
      if (photos.length === 0) {
        set({ phase: { step: 'failed', message: 'Add at least one photo of the shelf.' } });
        return null;
      }
      const toRetake = photos.filter((p) => p.quality?.mark === 'retake').length;
      if (toRetake > 0 && !reason?.trim()) {
        set({ phase: { step: 'needs-reason', photos: toRetake } });
        return null;
      }
      try {
        let visitId = draft.visitId;
        if (!visitId) {
          set({ phase: { step: 'creating-visit' } });
          visitId = newId();
          await createOne(api, 'visits', {
            id: visitId,
            shop: draft.shop || null,
            agent: draft.agent || null,
            started_date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          });
          await get().update({ visitId });
        }
        const uploadIds: string[] = [];
        let done = 0;
        set({ phase: { step: 'uploading', done, total: photos.length } });
        for (const photo of photos) {
          let uploadId = photo.uploadId;
          if (!uploadId) {
            const answer = await uploadImage(api, photo.blob, photo.name);
            uploadId = answer.id;
            await repo.markUploaded(photo.id, uploadId, answer.quality);
            photo.uploadId = uploadId;
            photo.quality = answer.quality;
          }
          uploadIds.push(uploadId);
          set({ phase: { step: 'uploading', done: ++done, total: photos.length } });
        }
        // Photos uploaded only now (added while the server was away) were checked only now.
        const nowRetake = photos.filter((p) => p.quality?.mark === 'retake').length;
        if (nowRetake > 0 && !reason?.trim()) {
          set({ photos: [...photos], phase: { step: 'needs-reason', photos: nowRetake } });
          return null;
        }
        set({ phase: { step: 'starting-recognition' } });
        const response: RecognizeResponse = await recognize(api, {
          images: uploadIds,
          display: display?.id,
          visit: visitId,
          report_types: reportTypesFor(display),
          metadata: draft.agent || reason?.trim()
            ? {
                ...(draft.agent ? { agent_id: draft.agent, agent_name: draft.agent } : {}),
                // Kept with the scene, so review sees why photos marked retake were sent anyway.
                ...(nowRetake > 0 && reason?.trim() ? { retake_reason: reason.trim() } : {}),
              }
            : undefined,
        });
        await repo.rememberRecognition({
          id: response.id,
          visit: response.visit ?? visitId,
          scene: response.scene,
          reports: response.reports as Record<string, string>,
          startedAt: Date.now(),
        });
        await repo.clearDraft(CURRENT_DRAFT);
        const visit = response.visit ?? visitId;
        // Keep display, shop and agent for the next visit in the same store; the photos are done.
        const next = { ...emptyDraft(), display: draft.display, shop: draft.shop, agent: draft.agent };
        await repo.saveDraft(next);
        set({ phase: { step: 'started', visit }, photos: [], draft: next });
        return visit;
      } catch (error) {
        set({ phase: { step: 'failed', message: describeError(error) } });
        return null;
      }
    },
  };
  });
}
