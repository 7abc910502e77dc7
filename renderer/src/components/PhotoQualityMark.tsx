// A photo's quality as the server judged it: a mark (fine / check / retake) and each issue's message,
// so the auditor knows what to do while still at the shelf.
import type { PhotoQuality } from '../api/types';

const LABEL = { fine: 'Fine', check: 'Check', retake: 'Retake' } as const;

export function PhotoQualityMark({ quality, name }: { quality: PhotoQuality | undefined; name: string }) {
  if (!quality) return <span className="muted quality-mark quality-unknown">Not checked yet</span>;
  return (
    <div className={`quality quality-${quality.mark}`} aria-label={`Quality of ${name}`}>
      <span className={`quality-mark quality-mark-${quality.mark}`} role="status">
        {LABEL[quality.mark]}
      </span>
      {quality.issues.length > 0 && (
        // Paragraphs, not a list: the photo sits in a list item of its own, which screens count.
        <div className="quality-issues">
          {quality.issues.map((issue) => (
            <p key={issue.code} title={`${issue.code}: measured ${issue.value}${issue.threshold === null ? '' : `, limit ${issue.threshold}`}`}>
              {issue.message}
            </p>
          ))}
        </div>
      )}
    </div>
  );
}
