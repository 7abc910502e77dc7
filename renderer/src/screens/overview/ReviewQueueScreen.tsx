// The review queue: the visits of the range that most need a person, first (unreviewed, unknown
// products, low scores, flagged photos; docs/api.md, "Overview"), with how many have each reason, so
// a supervisor works down one list.
import { useMemo, useState } from 'react';
import { Empty, ErrorMessage, Loading } from '../../components/StateMessage';
import { hrefFor } from '../../navigation/routes';
import { useSession } from '../../stores/session';
import { OverviewFilters } from './OverviewScreen';
import { defaultFilter, filterQuery, overviewApi, type OverviewFilter } from './overviewApi';
import { useLoad } from './useLoad';
import { REASON_LABELS, VisitTable } from './VisitsBehind';

const PAGE = 50;

export function ReviewQueueScreen() {
  const api = useSession((s) => s.api);
  const [filter, setFilter] = useState<OverviewFilter>(() => defaultFilter());
  const [shown, setShown] = useState(PAGE);
  const q = useMemo(() => filterQuery(filter), [filter]);
  const queue = useLoad(`queue ${JSON.stringify(q)} ${shown}`, (s) => overviewApi.queue(api, { ...q, limit: shown }, s));
  return (
    <section aria-labelledby="queue-title">
      <header className="screen-header">
        <h2 id="queue-title">Review queue</h2>
        <a className="button" href={hrefFor({ screen: 'overview' })}>Overview</a>
      </header>
      <OverviewFilters filter={filter} onChange={(f) => { setFilter(f); setShown(PAGE); }} fields={queue.fields} />
      {queue.error && <ErrorMessage message={queue.error} />}
      {queue.loading && !queue.data && <Loading what="the review queue" />}
      {queue.data && (
        <>
          <ul className="queue-counts" aria-label="Visits to look at">
            <li><strong>{queue.data.count}</strong> to look at</li>
            {Object.entries(queue.data.counts).map(([reason, n]) => (
              <li key={reason}>{REASON_LABELS[reason] ?? reason}: <strong>{n}</strong></li>
            ))}
          </ul>
          {queue.data.results.length === 0 ? <Empty>Nothing needs a look in this range.</Empty> : (
            <>
              <VisitTable visits={queue.data.results} api={api} label="Review queue" />
              {queue.data.next && <button type="button" onClick={() => setShown((n) => n + PAGE)}>More</button>}
            </>
          )}
        </>
      )}
    </section>
  );
}
