// The "new visit" flow: a draft (display, shop, agent) and its photos, kept in IndexedDB until they
// are uploaded so a reload or a crash loses nothing, then: create the visit, upload each photo
// (remembering what is already uploaded, so a retry after a failure resumes), start recognition.
import { create } from 'zustand';
import type { ApiClient } from '../api/client';
import { createOne, recognize, uploadImage } from '../api/endpoints';
import { describeError } from '../api/errors';
import type { Display, RecognizeResponse, ReportType } from '../api/types';
import type { PendingPhoto, StartedRecognition, VisitDraft } from '../db/database';

export interface DraftRepository {
  loadDraft(id: string): Promise<VisitDraft | undefined>;
  saveDraft(draft: VisitDraft): Promise<void>;
  photos(draftId: string): Promise<PendingPhoto[]>;
  addPhoto(photo: PendingPhoto): Promise<void>;
  markUploaded(photoId: string, uploadId: string): Promise<void>;
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
  | { step: 'started'; visit: string }
  | { step: 'failed'; message: string };

export interface NewVisitState {
  draft: VisitDraft;
  photos: PendingPhoto[];
  loaded: boolean;
  phase: Phase;
  load(): Promise<void>;
  update(patch: Partial<Pick<VisitDraft, 'display' | 'shop' | 'agent' | 'visitId'>>): Promise<void>;
  addPhotos(files: File[]): Promise<void>;
  removePhoto(id: string): Promise<void>;
  start(api: ApiClient, display: Display | null): Promise<string | null>;
}

export const CURRENT_DRAFT = 'current';

/** Reports asked for: the compliance ones only when the display has what they compare against. */
export function reportTypesFor(display: Display | null): ReportType[] {
  const types: ReportType[] = ['FACING_COUNT', 'REALOGRAM', 'SHARE_OF_SPACE', 'PANORAMA'];
  if (display?.planogram) types.push('PLANOGRAM_COMPLIANCE');
  if (display?.musthavelist) types.push('MHL_COMPLIANCE');
  return types;
}

export function createNewVisitStore(repo: DraftRepository, newId: () => string = () => crypto.randomUUID()) {
  const emptyDraft = (): VisitDraft => ({ id: CURRENT_DRAFT, display: '', shop: '', agent: '', updatedAt: Date.now() });
  return create<NewVisitState>()((set, get) => ({
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

    async addPhotos(files) {
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
    },

    async removePhoto(id) {
      await repo.removePhoto(id);
      set({ photos: get().photos.filter((p) => p.id !== id) });
    },

    async start(api, display) {
      const { draft, photos } = get();
      if (photos.length === 0) {
        set({ phase: { step: 'failed', message: 'Add at least one photo of the shelf.' } });
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
            uploadId = (await uploadImage(api, photo.blob, photo.name)).id;
            await repo.markUploaded(photo.id, uploadId);
            photo.uploadId = uploadId;
          }
          uploadIds.push(uploadId);
          set({ phase: { step: 'uploading', done: ++done, total: photos.length } });
        }
        set({ phase: { step: 'starting-recognition' } });
        const response: RecognizeResponse = await recognize(api, {
          images: uploadIds,
          display: display?.id,
          visit: visitId,
          report_types: reportTypesFor(display),
          metadata: draft.agent ? { agent_id: draft.agent, agent_name: draft.agent } : undefined,
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
  }));
}
