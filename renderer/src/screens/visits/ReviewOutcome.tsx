// What a supervisor's review did to this visit, read from its correction records: who reviewed it and
// when, the boxes relabelled, removed and drawn, and the facing counts of the reviewed photos beside
// what recognition counted. On an auditor's laptop the review arrives by sync and is read-only here.
import { useEffect, useState } from 'react';
import { listCorrections } from '../../api/endpoints';
import { describeError } from '../../api/errors';
import type { Report } from '../../api/types';
import { ErrorMessage } from '../../components/StateMessage';
import { useSession } from '../../stores/session';
import { FacingTable } from './FacingTable';
import { summariseReview, type ReviewChange, type ReviewSummary } from './reviewChanges';
import type { SkuColours } from './skuColours';

const STATES: Record<string, string> = { reviewed: 'Reviewed', in_review: 'Partly reviewed', unreviewed: 'Not reviewed' };

function describeChange(c: ReviewChange, nameOf: (sku: string | null) => string): string {
  const boxes = c.count === 1 ? '1 box' : `${c.count} boxes`;
  if (c.kind === 'relabelled') return `Relabelled ${boxes}: ${nameOf(c.from)} → ${nameOf(c.to)}`;
  if (c.kind === 'removed') return `Removed ${boxes} of ${nameOf(c.from)}`;
  return `Drew ${boxes} of ${nameOf(c.to)}`;
}

export function ReviewOutcome({
  reports,
  moderation,
  nameOf,
  colourOf,
}: {
  /** The visit's reports: their scenes are the ones whose reviews are read, again whenever they change. */
  reports: readonly Report[];
  moderation: string | null;
  nameOf: (sku: string | null) => string;
  colourOf: SkuColours;
}) {
  const api = useSession((s) => s.api);
  const [summary, setSummary] = useState<ReviewSummary | null>(null);
  const [error, setError] = useState<string | null>(null);
  const scenes = [...new Set(reports.map((r) => r.scene).filter((s): s is string => s !== null))].sort().join(',');
  // New reports (a review saved here, or one that sync brought) mean the corrections may have changed.
  const version = reports.map((r) => `${r.id}:${r.status}`).join(',');
  useEffect(() => {
    let live = true;
    const ids = scenes.split(',').filter(Boolean);
    Promise.all(ids.map((s) => listCorrections(api, s))).then(
      (lists) => live && (setSummary(summariseReview(lists.flat())), setError(null)),
      (e) => live && setError(describeError(e)),
    );
    return () => {
      live = false;
    };
  }, [api, scenes, version]);

  if (error) return <ErrorMessage message={error} />;
  if (!summary) return null;
  return (
    <section aria-labelledby="review-outcome-title" className="review-outcome">
      <h3 id="review-outcome-title">Review</h3>
      <p role="status" aria-label="Review state">
        {STATES[moderation ?? ''] ?? 'Reviewed'} by a supervisor on {new Date(summary.reviewed).toLocaleString()}
        {/* The reviewer is the API key that saved, on whichever laptop the review was made. */}
        {summary.reviewer && <span className="muted"> (reviewer key {summary.reviewer.slice(0, 8)})</span>}
      </p>
      <h4 id="review-changes-title">Changed in review</h4>
      {summary.changes.length === 0 ? (
        <p className="muted">Nothing: every box was confirmed as recognised.</p>
      ) : (
        <ul aria-labelledby="review-changes-title">
          {summary.changes.map((c) => (
            <li key={`${c.kind}:${c.from}:${c.to}`}>{describeChange(c, nameOf)}</li>
          ))}
        </ul>
      )}
      <FacingTable
        label="Counts after review"
        rows={summary.after}
        nameOf={nameOf}
        colourOf={colourOf}
        before={new Map(summary.before.map((r) => [r.sku_id, r.count]))}
      />
    </section>
  );
}
