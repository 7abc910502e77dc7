// The top of the visit screen: where it is, whose visit, its acknowledgement, and the last thing done.
import { useState } from 'react';
import { describeError } from '../../api/errors';
import type { DataVisit, Visit } from '../../api/types';
import { ErrorMessage } from '../../components/StateMessage';
import { hrefFor } from '../../navigation/routes';

export function VisitHeader({
  visit,
  dataVisit,
  onAcknowledge,
  notice,
}: {
  visit: Visit;
  dataVisit: DataVisit | null;
  /** Acknowledges the visit; throws what the server answered. */
  onAcknowledge(): Promise<void>;
  notice: string | null;
}) {
  const [ackError, setAckError] = useState<string | null>(null);
  const shop = visit.shop_name || visit.shop;
  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <a href={hrefFor({ screen: 'visits' })}>Visits</a> / {shop || visit.id}
      </nav>
      <header className="screen-header">
        <h2 id="visit-title">Visit {shop ? `at ${shop}` : visit.id.slice(0, 8)}</h2>
        <span className="muted">
          {visit.agent && `Agent ${visit.agent} · `}
          {visit.started_date && new Date(visit.started_date).toLocaleString()}
        </span>
        {dataVisit &&
          (dataVisit.is_new === false ? (
            <span className="badge badge-ok" role="status">
              Acknowledged
            </span>
          ) : (
            <button
              type="button"
              className="primary"
              onClick={async () => {
                setAckError(null);
                try {
                  await onAcknowledge();
                } catch (e) {
                  setAckError(describeError(e));
                }
              }}
            >
              Acknowledge visit
            </button>
          ))}
      </header>
      {ackError && <ErrorMessage message={ackError} />}
      {notice && (
        <p role="status" className="form-saved">
          {notice}
        </p>
      )}
    </>
  );
}
