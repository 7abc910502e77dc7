// The visits list a supervisor works through: filter to the new ones, by agent, day, shop or photo quality. The server
// filters, searches, sorts and pages: only the page shown travels, each visit with its "new" flag.
import { useEffect, useMemo, useState } from 'react';
import type { ApiClient, Query } from '../../api/client';
import { getVisitsByMark, listPage } from '../../api/endpoints';
import type { Visit } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';
import { Empty } from '../../components/StateMessage';
import { DataTable } from '../../components/table/DataTable';
import type { ServerSource } from '../../components/table/serverPage';
import { hrefFor } from '../../navigation/routes';
import { useSession } from '../../stores/session';
import { isFiltered, NO_FILTER, visitQuery, type VisitFilter } from './visitFilters';

function visitSource(api: ApiClient, filter: VisitFilter, version: number): ServerSource<Visit> {
  const filters = visitQuery(filter);
  return {
    key: `visits?${JSON.stringify(filters)}`,
    version,
    // Each visit carries its "new" flag: the page is the one request (two with a photo-quality
    // filter: the visits of that mark first, then the page of them).
    load: async (query: Query, signal: AbortSignal) => {
      if (!filter.quality) return listPage(api, 'visits', { ...query, ...filters }, signal);
      const { visits } = await getVisitsByMark(api, filter.quality, signal);
      // No id matches the empty string, so an empty choice lists nothing.
      return listPage(api, 'visits', { ...query, ...filters, id__in: visits.length ? visits.join(',') : ',' }, signal);
    },
  };
}

export function VisitsScreen() {
  const api = useSession((s) => s.api);
  const [filter, setFilter] = useState<VisitFilter>(NO_FILTER);
  const [version, setVersion] = useState(0);
  const source = useMemo(() => visitSource(api, filter, version), [api, filter, version]);

  // Visits arrive from the auditors' laptops while a supervisor works through the list.
  useEffect(() => {
    const timer = setInterval(() => setVersion((v) => v + 1), 30_000);
    return () => clearInterval(timer);
  }, []);

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
        <TextField label="Agent" value={filter.agent} placeholder="Any agent" onChange={(e) => set({ agent: e.target.value })} />
        <TextField label="Date" type="date" value={filter.date} onChange={(e) => set({ date: e.target.value })} />
        <TextField label="Shop" value={filter.shop} placeholder="Any shop" onChange={(e) => set({ shop: e.target.value })} />
        <SelectField
          label="Photo quality"
          value={filter.quality}
          placeholder="Any photos"
          options={[
            { value: 'retake', label: 'Some to retake' },
            { value: 'check', label: 'Some to check' },
            { value: 'fine', label: 'All fine' },
          ]}
          onChange={(e) => set({ quality: e.target.value as VisitFilter['quality'] })}
        />
        <button type="button" onClick={() => setFilter(NO_FILTER)}>
          Clear filters
        </button>
      </form>
      <DataTable<Visit>
        key={JSON.stringify(filter)}
        label="Visits"
        source={source}
        rowKey={(v) => v.id}
        initialSort="started"
        initialDirection="descending"
        columns={[
          {
            key: 'started',
            field: 'started_date',
            label: 'Started',
            value: (v) => v.started_date,
            render: (v) => <a href={hrefFor({ screen: 'visit', id: v.id })}>{v.started_date ? new Date(v.started_date).toLocaleString() : v.id}</a>,
          },
          { key: 'shop', label: 'Shop', value: (v) => v.shop_name || v.shop },
          { key: 'agent', label: 'Agent', value: (v) => v.agent },
          {
            key: 'status',
            label: 'Status',
            sortable: false,
            value: (v) => (v.is_new ? 'New' : 'Acknowledged'),
            render: (v) => (v.is_new ? <span className="badge badge-new">New</span> : <span className="badge badge-ok">Acknowledged</span>),
          },
        ]}
        empty={isFiltered(filter) ? <Empty>No visit matches these filters.</Empty> : <Empty>No visits yet. Start one with “New visit”.</Empty>}
      />
    </section>
  );
}
