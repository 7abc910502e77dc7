// The visits list a supervisor works through: filter to the new ones, by agent, day or shop. The server
// filters, searches, sorts and pages: only the page shown travels, and one more small request says
// which of its visits are new.
import { useEffect, useMemo, useState } from 'react';
import type { ApiClient, Query } from '../../api/client';
import { listPage } from '../../api/endpoints';
import type { Visit } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';
import { Empty } from '../../components/StateMessage';
import { DataTable } from '../../components/table/DataTable';
import type { ServerSource } from '../../components/table/serverPage';
import { hrefFor } from '../../navigation/routes';
import { useSession } from '../../stores/session';
import { isFiltered, NO_FILTER, visitQuery, type VisitFilter } from './visitFilters';

/** A visit with its "new" flag (a column v1.5 filters on but does not show). */
type VisitRow = Visit & { isNew: boolean };

function visitSource(api: ApiClient, filter: VisitFilter, version: number): ServerSource<VisitRow> {
  const filters = visitQuery(filter);
  return {
    key: `visits?${JSON.stringify(filters)}`,
    version,
    async load(query: Query, signal: AbortSignal) {
      const page = await listPage(api, 'visits', { ...query, ...filters }, signal);
      const ids = page.results.map((v) => v.id);
      // Filtered by status, every row has that flag; else ask which of this page's visits are new.
      const fresh =
        filter.status !== 'all' || ids.length === 0
          ? null
          : new Set((await listPage(api, 'visits', { id__in: ids.join(','), is_new: true, limit: ids.length }, signal)).results.map((v) => v.id));
      return { count: page.count, results: page.results.map((v) => ({ ...v, isNew: fresh ? fresh.has(v.id) : filter.status === 'new' })) };
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
        <button type="button" onClick={() => setFilter(NO_FILTER)}>
          Clear filters
        </button>
      </form>
      <DataTable<VisitRow>
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
            value: (v) => (v.isNew ? 'New' : 'Acknowledged'),
            render: (v) => (v.isNew ? <span className="badge badge-new">New</span> : <span className="badge badge-ok">Acknowledged</span>),
          },
        ]}
        empty={isFiltered(filter) ? <Empty>No visit matches these filters.</Empty> : <Empty>No visits yet. Start one with “New visit”.</Empty>}
      />
    </section>
  );
}
