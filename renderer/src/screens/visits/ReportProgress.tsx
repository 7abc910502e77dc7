// How far recognition has got: reports done out of those requested, and each report's state.
import { Empty, ErrorMessage, Loading } from '../../components/StateMessage';
import { REPORT_LABEL } from './reportLabels';
import type { VisitReports } from './useVisitReports';

export function ReportProgress({ reports }: { reports: VisitReports }) {
  const { byType, requested, pending, failed } = reports;
  return (
    <section aria-label="Recognition progress" className="report-progress">
      {!reports.loaded ? (
        <Loading what="reports" />
      ) : requested.length === 0 ? (
        <Empty>No recognition has been run for this visit.</Empty>
      ) : (
        <>
          <p role="status" aria-live="polite">
            {pending > 0
              ? `Recognition in progress: ${requested.length - pending} of ${requested.length} reports done`
              : failed > 0
                ? `Recognition finished: ${requested.length - failed} reports ready, ${failed} failed`
                : 'All reports ready'}
          </p>
          <progress max={requested.length} value={requested.length - pending} aria-label="Reports ready" />
          <ul className="report-chips">
            {requested.map((t) => (
              <li key={t} className={`chip chip-${byType[t]?.status.toLowerCase()}`}>
                {REPORT_LABEL[t]}: {byType[t]?.status === 'READY' ? 'ready' : byType[t]?.status === 'ERROR' ? 'failed' : 'working…'}
              </li>
            ))}
          </ul>
        </>
      )}
      {reports.error && <ErrorMessage message={`Reports could not be read: ${reports.error}`} />}
    </section>
  );
}
