// The quality of a visit's photos, scene by scene: what /recognize answers for a new scene and what
// review shows. Pixel checks and repeats come from the stored measures (domain/photo-quality.ts); the
// distance and coverage checks from the scene's analysis once recognition has stored it.
import type { Kysely } from 'kysely';
import { sceneQuality, type PhotoOfScene, type ScenePhotoQuality } from '../domain/photo-quality.js';
import type { PhotoBucket } from '../domain/upload-cache.js';
import type { SceneAnalysis } from '../recognition/analysis.js';
import type { Database } from '../storage/schema.js';
import { uploadFiles, visitScenePhotos } from './queries.js';

export interface SceneQuality {
  scene: string;
  photos: ScenePhotoQuality[];
}

/** Each scene of a visit (or only `sceneId`) with its photos' quality; repeats are judged against earlier scenes. */
export async function visitQuality(db: Kysely<Database>, dataDir: string, visitId: string, sceneId?: string, bucket: PhotoBucket = null): Promise<SceneQuality[]> {
  const scenes = await visitScenePhotos(db, visitId);
  const allIds = scenes.flatMap((s) => JSON.parse(s.images) as string[]);
  const files = await uploadFiles(db, allIds);
  const out: SceneQuality[] = [];
  const earlier: { id: string; file: string }[] = [];
  for (const scene of scenes) {
    const images = (JSON.parse(scene.images) as string[]).filter((id) => files.has(id));
    if (sceneId === undefined || scene.id === sceneId) {
      const analysis = scene.analysis ? (JSON.parse(scene.analysis) as SceneAnalysis) : null;
      const photos: PhotoOfScene[] = images.map((id) => {
        const found = analysis?.images.find((a) => a.image === id);
        return {
          upload: files.get(id)!,
          ...(found ? { detected: { width: found.width, height: found.height, boxes: found.products } } : {}),
        };
      });
      out.push({ scene: scene.id, photos: await sceneQuality(db, dataDir, photos, earlier, bucket) });
    }
    earlier.push(...images.map((id) => files.get(id)!));
  }
  return out;
}

/** The worst mark of a visit's photos: retake over check over fine. */
export function worstMark(scenes: readonly SceneQuality[]): 'fine' | 'check' | 'retake' {
  const marks = new Set(scenes.flatMap((s) => s.photos.map((p) => p.mark)));
  return marks.has('retake') ? 'retake' : marks.has('check') ? 'check' : 'fine';
}
