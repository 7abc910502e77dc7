// What a report's part of the visit screen shows until the report is READY: that it failed, and why,
// or that it is being computed.
import type { ReactNode } from 'react';
import type { Report, ReportType } from '../../api/types';
import { ErrorMessage } from '../../components/StateMessage';
import { REPORT_LABEL } from './reportLabels';

export function ReportStatus({ type, report }: { type: ReportType; report: Report | undefined }) {
  if (report?.status === 'ERROR') return <ErrorMessage message={`${REPORT_LABEL[type]} failed: ${report.error ?? 'unknown error'}`} />;
  if (report?.status === 'NOT_READY')
    return (
      <p className="state state-loading" role="status">
        Computing {REPORT_LABEL[type].toLowerCase()}…
      </p>
    );
  return null;
}

/** A titled section for a report that was requested (nothing otherwise): its state, then its body. */
export function ReportSection({
  id,
  title,
  type,
  report,
  children,
}: {
  id: string;
  title: string;
  type: ReportType;
  report: Report | undefined;
  children: ReactNode;
}) {
  if (!report) return null;
  return (
    <section aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      <ReportStatus type={type} report={report} />
      {children}
    </section>
  );
}
