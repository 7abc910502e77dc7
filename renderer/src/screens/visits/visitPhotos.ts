// The photos of a visit's recognition results: what the visit screen draws boxes on and what review
// mode corrects.
import type { Realogram, RealogramImage, Report } from '../../api/types';
import { realogramsByScene } from '../../stores/visitReports';

export interface ScenePhoto {
  photo: RealogramImage;
  /** The scene its boxes belong to (`fallback` for a report that names none). */
  scene: string | null;
}

/** Photos of every scene of the visit, oldest scene first. */
export function photosOf(reports: readonly Report[], fallback: string | null): ScenePhoto[] {
  return realogramsByScene(reports)
    .filter((r) => r.status === 'READY' && r.json)
    .flatMap((r) => (r.json as Realogram).map((photo) => ({ photo, scene: r.scene ?? fallback })));
}

/** Every scene of the visit with a recognition result, oldest first: what review mode corrects. */
export function reviewScenesOf(reports: readonly Report[]): string[] {
  return [...new Set(realogramsByScene(reports).filter((r) => r.status === 'READY' && r.scene).map((r) => r.scene as string))];
}

export interface BayNotice {
  scene: string | null;
  /** Numbers (1-based, within the visit's photos) of the photos joined into the scene's bay. */
  joined: number[];
  /** Why the others were not joined, in words. */
  notJoined: string[];
}

/** For each scene of several photos, which photos were joined into its bay and why the others were not. */
export function bayNotices(photos: readonly ScenePhoto[]): BayNotice[] {
  const byScene = new Map<string | null, BayNotice>();
  photos.forEach(({ photo, scene }, i) => {
    if (photo.joined === undefined) return;
    const n = byScene.get(scene) ?? { scene, joined: [], notJoined: [] };
    if (photo.joined) n.joined.push(i + 1);
    else if (photo.join_message) n.notJoined.push(photo.join_message);
    byScene.set(scene, n);
  });
  return [...byScene.values()];
}
