// The visits behind one figure of the overview, or the review queue's: each opens its visit screen
// and downloads as a PDF; the list pages on the server ("More").
import { useState } from 'react';
import type { ApiClient } from '../../api/client';
import { Empty, ErrorMessage, Loading } from '../../components/StateMessage';
import { hrefFor } from '../../navigation/routes';
import { useSession } from '../../stores/session';
import { overviewApi, visitPdf, type Drill, type OverviewVisit } from './overviewApi';
import { useLoad } from './useLoad';

const PAGE = 50;
const pct = (v: number | null) => (v === null ? '—' : `${v.toFixed(1)}%`);

export const REASON_LABELS: Record<string, string> = {
  unreviewed: 'Unreviewed',
  in_review: 'In review',
  unknown_products: 'Unknown products',
  low_score: 'Low score',
  flagged_photos: 'Flagged photos',
  unjoined_photos: 'Photos not joined',
  missing_must_haves: 'Must-haves missing',
};

export function VisitTable({ visits, api, label }: { visits: OverviewVisit[]; api: ApiClient; label: string }) {
  return (
    <table className="figures" aria-label={label}>
      <thead>
        <tr><th>Visit</th><th>Shop</th><th>Agent</th><th>Review</th><th>OSA</th><th>Planogram</th><th>Price</th><th>Unknown</th><th>Flagged</th><th>Needs</th><th /></tr>
      </thead>
      <tbody>
        {visits.map((v) => (
          <tr key={v.visit}>
            <td><a href={hrefFor({ screen: 'visit', id: v.visit })}>{v.name ?? v.visit}</a> <span className="hint">{v.started_date.slice(0, 10)}</span></td>
            <td>{v.shop_name ?? v.shop ?? '—'}</td>
            <td>{v.agent ?? '—'}</td>
            <td>{REASON_LABELS[v.review] ?? 'Reviewed'}</td>
            <td>{pct(v.osa)}</td>
            <td>{pct(v.planogram)}</td>
            <td>{pct(v.price)}</td>
            <td>{v.unknown_facings}</td>
            <td>{v.flagged}</td>
            <td>{v.reasons.filter((r) => r !== v.review).map((r) => REASON_LABELS[r] ?? r).join(', ')}</td>
            <td><button type="button" onClick={() => void visitPdf(api, v.visit)}>PDF</button></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function VisitsBehind({ drill, onClose }: { drill: Drill; onClose(): void }) {
  const api = useSession((s) => s.api);
  const [shown, setShown] = useState(PAGE);
  const list = useLoad(`behind ${JSON.stringify(drill.query)} ${shown}`, (s) => overviewApi.visits(api, { ...drill.query, limit: shown }, s));
  return (
    <section className="panel" aria-labelledby="behind-title">
      <header className="screen-header">
        <h3 id="behind-title">{drill.label}</h3>
        <button type="button" onClick={onClose}>Close</button>
      </header>
      {list.error && <ErrorMessage message={list.error} />}
      {list.loading && !list.data && <Loading what="visits" />}
      {list.data && (list.data.results.length === 0 ? <Empty>No visits.</Empty> : (
        <>
          <p className="hint">{list.data.count} visits, latest first.</p>
          <VisitTable visits={list.data.results} api={api} label="Visits behind the figure" />
          {list.data.next && <button type="button" onClick={() => setShown((n) => n + PAGE)}>More</button>}
        </>
      ))}
    </section>
  );
}
