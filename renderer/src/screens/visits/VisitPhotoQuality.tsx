// Each photo's quality for the supervisor reviewing a visit: the mark and the reasons, and, once
// recognised, distance and coverage from the detector too. Reloaded while reports are pending.
import { useCallback, useEffect, useState } from 'react';
import { getVisitQuality } from '../../api/endpoints';
import { describeError } from '../../api/errors';
import type { VisitQuality } from '../../api/types';
import { PhotoQualityMark } from '../../components/PhotoQualityMark';
import { ErrorMessage } from '../../components/StateMessage';
import { useSession } from '../../stores/session';

export function VisitPhotoQuality({ visit, pending }: { visit: string; pending: number }) {
  const api = useSession((s) => s.api);
  const [quality, setQuality] = useState<VisitQuality | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    setError(null);
    getVisitQuality(api, visit).then(setQuality, (e) => setError(describeError(e)));
  }, [api, visit]);
  // Again when the pending reports change: the detector's checks arrive with the analysis.
  useEffect(load, [load, pending]);

  if (error) return <ErrorMessage message={error} onRetry={load} />;
  if (!quality || quality.scenes.length === 0) return null;
  let n = 0;
  return (
    <section aria-labelledby="photo-quality-title" className="visit-photo-quality">
      <h3 id="photo-quality-title">Photo quality</h3>
      <ol className="quality-list">
        {quality.scenes.flatMap((scene) =>
          scene.photos.map((photo) => {
            n += 1;
            return (
              <li key={`${scene.scene}-${photo.image}`}>
                <span>Photo {n}</span> <PhotoQualityMark quality={photo} name={`photo ${n}`} />
              </li>
            );
          }),
        )}
      </ol>
    </section>
  );
}
