// Beside each photo added after the first: how it overlaps the photo before, from a quick registration
// of the two on the server (POST /uploads/overlap/), so the auditor retakes a photo that will not join
// the bay while still at the shelf. Asked once both photos are uploaded; silent when the server is away.
import { useEffect, useState } from 'react';
import { photoOverlap } from '../../api/endpoints';
import type { PhotoOverlap } from '../../api/types';
import type { ApiClient } from '../../api/client';

export function PhotoOverlapNote({ api, previous, next, number }: { api: ApiClient; previous: string | undefined; next: string | undefined; number: number }) {
  const [answer, setAnswer] = useState<PhotoOverlap | null>(null);
  useEffect(() => {
    setAnswer(null);
    if (!previous || !next) return;
    let live = true;
    photoOverlap(api, previous, next).then(
      (a) => live && setAnswer(a),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api, previous, next]);
  if (!previous || !next) return null;
  if (!answer) return <span className="muted photo-overlap">Checking the overlap with photo {number - 1}…</span>;
  const good = answer.joined && answer.overlap !== null && answer.overlap >= 0.2 && answer.overlap < 0.95;
  return (
    <span className={`photo-overlap ${good ? 'overlap-ok' : 'overlap-warn'}`} role="status" aria-label={`Overlap of photo ${number} with photo ${number - 1}`}>
      {answer.message}
    </span>
  );
}
