// The visits list a supervisor works through: filter to the new ones, by agent, day or shop.
import { useEffect, useMemo, useState } from 'react';
import { listDataVisits } from '../../api/endpoints';
import type { Visit } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';
import { Empty, ErrorMessage, Loading, StaleNotice } from '../../components/StateMessage';
import { DataTable } from '../../components/table/DataTable';
import { hrefFor } from '../../navigation/routes';
import { useCollection } from '../../stores/appStores';
import { useSession } from '../../stores/session';
import { distinct, filterVisits, NO_FILTER, type VisitFilter } from './visitFilters';

export function VisitsScreen() {
  const api = useSession((s) => s.api);
  const visits = useCollection('visits');
  const [flags, setFlags] = useState<Map<string, boolean>>(new Map());
  const [filter, setFilter] = useState<VisitFilter>(NO_FILTER);

  useEffect(() => {
    // The "new" flag lives in the Data API, whose visit `cid` is the v1.5 id.
    Promise.all([listDataVisits(api, { is_new: 'true' }), listDataVisits(api, { is_new: 'false' })]).then(
      ([fresh, seen]) => {
        const map = new Map<string, boolean>();
        for (const v of seen) map.set(v.cid, v.is_new ?? false);
        for (const v of fresh) map.set(v.cid, v.is_new ?? true);
        setFlags(map);
      },
      () => undefined,
    );
  }, [api, visits.items]);

  // Visits arrive from the auditors' laptops while a supervisor works through the list.
  useEffect(() => {
    const timer = setInterval(() => void visits.reload(), 30_000);
    return () => clearInterval(timer);
  }, [api]);

  const shown = useMemo(() => filterVisits(visits.items, filter, (id) => flags.get(id)), [visits.items, filter, flags]);
  const set = (patch: Partial<VisitFilter>) => setFilter({ ...filter, ...patch });

  return (
    <section aria-labelledby="visits-title">
      <header className="screen-header">
        <h2 id="visits-title">Visits</h2>
        <a className="button primary" href={hrefFor({ screen: 'new-visit' })}>
          New visit
        </a>
      </header>
      <form className="filters" aria-label="Filter visits" onSubmit={(e) => e.preventDefault()}>
        <SelectField
          label="Status"
          value={filter.status === 'all' ? '' : filter.status}
          placeholder="All visits"
          options={[
            { value: 'new', label: 'New' },
            { value: 'acknowledged', label: 'Acknowledged' },
          ]}
          onChange={(e) => set({ status: (e.target.value || 'all') as VisitFilter['status'] })}
        />
        <SelectField
          label="Agent"
          value={filter.agent}
          placeholder="Any agent"
          options={distinct(visits.items.map((v) => v.agent)).map((a) => ({ value: a, label: a }))}
          onChange={(e) => set({ agent: e.target.value })}
        />
        <TextField label="Date" type="date" value={filter.date} onChange={(e) => set({ date: e.target.value })} />
        <SelectField
          label="Shop"
          value={filter.shop}
          placeholder="Any shop"
          options={distinct(visits.items.map((v) => v.shop)).map((s) => ({ value: s, label: s }))}
          onChange={(e) => set({ shop: e.target.value })}
        />
        <button type="button" onClick={() => setFilter(NO_FILTER)}>
          Clear filters
        </button>
      </form>
      {visits.status === 'error' && visits.items.length === 0 && <ErrorMessage message={visits.error ?? 'Failed'} onRetry={visits.reload} />}
      {visits.status === 'error' && visits.items.length > 0 && <StaleNotice error={visits.error ?? ''} />}
      {visits.status === 'loading' && visits.items.length === 0 ? (
        <Loading what="visits" />
      ) : (
        <DataTable<Visit>
          key={JSON.stringify(filter)}
          label="Visits"
          rows={shown}
          rowKey={(v) => v.id}
          initialSort="started"
          initialDirection="descending"
          columns={[
            {
              key: 'started',
              label: 'Started',
              value: (v) => v.started_date,
              render: (v) => <a href={hrefFor({ screen: 'visit', id: v.id })}>{v.started_date ? new Date(v.started_date).toLocaleString() : v.id}</a>,
            },
            { key: 'shop', label: 'Shop', value: (v) => v.shop_name || v.shop },
            { key: 'agent', label: 'Agent', value: (v) => v.agent },
            {
              key: 'status',
              label: 'Status',
              value: (v) => ((flags.get(v.id) ?? true) ? 'New' : 'Acknowledged'),
              render: (v) =>
                (flags.get(v.id) ?? true) ? <span className="badge badge-new">New</span> : <span className="badge badge-ok">Acknowledged</span>,
            },
          ]}
          empty={
            visits.items.length === 0 ? (
              <Empty>No visits yet. Start one with “New visit”.</Empty>
            ) : (
              <Empty>No visit matches these filters.</Empty>
            )
          }
        />
      )}
    </section>
  );
}
