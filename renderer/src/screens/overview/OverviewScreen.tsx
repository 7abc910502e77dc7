// The supervisors' overview: for a date range and filters, the visit KPIs over time, the stores worst
// first, the must-haves missing by store, the share of shelf by brand and the auditors' photos. Every
// figure opens the visits behind it (the panel below the figures); the period exports as CSV or XLSX.
// Charts are recharts' SVG (Charts.tsx; its inline styles are set through the DOM, which the CSP allows).
import { lazy, Suspense, useMemo, useState } from 'react';
import type { Query } from '../../api/client';
import { listPage } from '../../api/endpoints';
import { SelectField, TextField } from '../../components/Field';
import { Empty, ErrorMessage, Loading } from '../../components/StateMessage';
import { hrefFor } from '../../navigation/routes';
import { useSession } from '../../stores/session';
import { defaultFilter, exportPeriod, filterQuery, overviewApi, type Drill, type OverviewFilter } from './overviewApi';
import { useLoad } from './useLoad';
import { VisitsBehind } from './VisitsBehind';

// The chart library is a chunk of its own, loaded when the overview first draws a chart: the screens'
// chunk, which every opening of the app loads, stays without it.
const KpiChart = lazy(() => import('./Charts').then((m) => ({ default: m.KpiChart })));
const ShareChart = lazy(() => import('./Charts').then((m) => ({ default: m.ShareChart })));

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${v.toFixed(1)}%`);
const num = (v: number | null | undefined) => (v === null || v === undefined ? '—' : v.toFixed(1));

export function OverviewFilters({ filter, onChange, fields }: { filter: OverviewFilter; onChange(f: OverviewFilter): void; fields: Record<string, string[]> }) {
  const api = useSession((s) => s.api);
  const options = useLoad('overview-options', async (signal) => {
    const [displays, brands, categories] = await Promise.all([
      listPage(api, 'displays', { limit: 200 }, signal),
      listPage(api, 'brands', { limit: 200 }, signal),
      listPage(api, 'categories', { limit: 200 }, signal),
    ]);
    const opts = (page: { results: { id: string; name: string }[] }) => page.results.map((r) => ({ value: r.id, label: r.name }));
    return { displays: opts(displays), brands: opts(brands), categories: opts(categories) };
  });
  const set = (patch: Partial<OverviewFilter>) => onChange({ ...filter, ...patch });
  return (
    <form className="filters" aria-label="Overview filters" onSubmit={(e) => e.preventDefault()}>
      <TextField label="From" type="date" value={filter.date_from} errors={fields.date_from} onChange={(e) => set({ date_from: e.target.value })} />
      <TextField label="To" type="date" value={filter.date_to} errors={fields.date_to} onChange={(e) => set({ date_to: e.target.value })} />
      <TextField label="Shop" value={filter.shop} placeholder="Any shop" errors={fields.shop} onChange={(e) => set({ shop: e.target.value })} />
      <SelectField label="Display" value={filter.display} placeholder="Any display" options={options.data?.displays ?? []} onChange={(e) => set({ display: e.target.value })} />
      <SelectField label="Brand" value={filter.brand} placeholder="Any brand" options={options.data?.brands ?? []} onChange={(e) => set({ brand: e.target.value })} />
      <SelectField label="Category" value={filter.category} placeholder="Any category" options={options.data?.categories ?? []} onChange={(e) => set({ category: e.target.value })} />
      <TextField label="Agent" value={filter.agent} placeholder="Any agent" errors={fields.agent} onChange={(e) => set({ agent: e.target.value })} />
      <SelectField
        label="Review"
        value={filter.review}
        placeholder="Any status"
        options={[
          { value: 'unreviewed', label: 'Unreviewed' },
          { value: 'in_review', label: 'In review' },
          { value: 'reviewed', label: 'Reviewed' },
        ]}
        onChange={(e) => set({ review: e.target.value })}
      />
    </form>
  );
}

export function OverviewScreen() {
  const api = useSession((s) => s.api);
  const [filter, setFilter] = useState<OverviewFilter>(() => defaultFilter());
  const [bucket, setBucket] = useState<'day' | 'week' | 'month'>('day');
  const [drill, setDrill] = useState<Drill | null>(null);
  const [exporting, setExporting] = useState<string | null>(null);
  const q = useMemo(() => filterQuery(filter), [filter]);
  const key = JSON.stringify(q);
  const kpis = useLoad(`kpis ${key} ${bucket}`, (s) => overviewApi.kpis(api, { ...q, bucket }, s));
  const stores = useLoad(`stores ${key}`, (s) => overviewApi.stores(api, q, s));
  const missing = useLoad(`missing ${key}`, (s) => overviewApi.missing(api, q, s));
  const share = useLoad(`share ${key}`, (s) => overviewApi.share(api, q, s));
  const agents = useLoad(`agents ${key}`, (s) => overviewApi.agents(api, q, s));

  const open = (label: string, extra: Query = {}) => setDrill({ label, query: { ...q, ...extra } });
  const change = (f: OverviewFilter) => {
    setFilter(f);
    setDrill(null);
  };
  const save = async (format: 'csv' | 'xlsx') => {
    setExporting(format);
    try {
      await exportPeriod(api, filter, format);
    } finally {
      setExporting(null);
    }
  };

  return (
    <section aria-labelledby="overview-title" className="overview">
      <header className="screen-header">
        <h2 id="overview-title">Overview</h2>
        <a className="button" href={hrefFor({ screen: 'review-queue' })}>
          Review queue
        </a>
        <button type="button" onClick={() => void save('csv')} disabled={exporting !== null}>
          Export CSV
        </button>
        <button type="button" onClick={() => void save('xlsx')} disabled={exporting !== null}>
          Export XLSX
        </button>
      </header>
      <OverviewFilters filter={filter} onChange={change} fields={kpis.fields} />
      {kpis.error && <ErrorMessage message={kpis.error} />}

      {kpis.data && (
        <>
          <div className="kpi-cards" aria-label="Totals">
            <button type="button" className="kpi-card" onClick={() => open('All visits of the range')}>
              <span className="kpi-label">Visits</span> <strong>{kpis.data.totals.visits}</strong>
            </button>
            <button type="button" className="kpi-card" onClick={() => open('All visits of the range')}>
              <span className="kpi-label">On-shelf availability</span> <strong>{pct(kpis.data.totals.osa)}</strong>
            </button>
            <button type="button" className="kpi-card" onClick={() => open('All visits of the range')}>
              <span className="kpi-label">Planogram compliance</span> <strong>{pct(kpis.data.totals.planogram)}</strong>
            </button>
            <button type="button" className="kpi-card" onClick={() => open('All visits of the range')}>
              <span className="kpi-label">Price compliance</span> <strong>{pct(kpis.data.totals.price)}</strong>
            </button>
            <button type="button" className="kpi-card" onClick={() => open('All visits of the range')}>
              <span className="kpi-label">Facings per visit</span> <strong>{num(kpis.data.totals.facings)}</strong>
            </button>
          </div>
          <section className="panel" aria-labelledby="kpi-title">
            <header className="screen-header">
              <h3 id="kpi-title">KPIs over time</h3>
              <SelectField
                label="Per"
                value={bucket}
                placeholder="Day"
                options={[
                  { value: 'week', label: 'Week' },
                  { value: 'month', label: 'Month' },
                ]}
                onChange={(e) => setBucket((e.target.value || 'day') as 'day' | 'week' | 'month')}
              />
            </header>
            {kpis.data.series.length === 0 ? (
              <Empty>No visits in this range.</Empty>
            ) : (
              <>
                <Suspense fallback={<Loading what="the chart" />}>
                  <KpiChart series={kpis.data.series} onPeriod={(period) => open(`Visits of ${period}`, { period, bucket })} />
                </Suspense>
                <table className="figures" aria-label="KPIs by period">
                  <thead>
                    <tr><th>Period</th><th>Visits</th><th>OSA</th><th>Planogram</th><th>Price</th><th>Facings</th></tr>
                  </thead>
                  <tbody>
                    {kpis.data.series.map((p) => (
                      <tr key={p.period}>
                        <td><button type="button" className="link" onClick={() => open(`Visits of ${p.period}`, { period: p.period, bucket })}>{p.period}</button></td>
                        <td>{p.visits}</td><td>{pct(p.osa)}</td><td>{pct(p.planogram)}</td><td>{pct(p.price)}</td><td>{num(p.facings)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </>
            )}
          </section>
        </>
      )}

      {drill && <VisitsBehind drill={drill} onClose={() => setDrill(null)} />}

      <div className="overview-grid">
        <section className="panel" aria-labelledby="stores-title">
          <h3 id="stores-title">Stores, worst first</h3>
          {stores.loading && !stores.data && <Loading what="stores" />}
          {stores.data && (stores.data.results.length === 0 ? <Empty>No store in this range.</Empty> : (
            <table className="figures" aria-label="Stores">
              <thead><tr><th>Shop</th><th>Visits</th><th>OSA</th><th>Planogram</th><th>Price</th><th>Missing</th><th>Last visit</th></tr></thead>
              <tbody>
                {stores.data.results.map((r) => (
                  <tr key={r.shop ?? ''}>
                    <td><button type="button" className="link" onClick={() => open(`Visits of ${r.shop_name ?? r.shop ?? 'no shop'}`, { shop: r.shop ?? '' })}>{r.shop_name ?? r.shop ?? '—'}</button></td>
                    <td>{r.visits}</td><td>{pct(r.osa)}</td><td>{pct(r.planogram)}</td><td>{pct(r.price)}</td><td>{r.missing}</td><td>{r.last_visit.slice(0, 10)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
        </section>

        <section className="panel" aria-labelledby="missing-title">
          <h3 id="missing-title">Must-haves missing</h3>
          {missing.data && (missing.data.results.length === 0 ? <Empty>No must-have missing in this range.</Empty> : (
            <table className="figures" aria-label="Must-haves missing">
              <thead><tr><th>Shop</th><th>Product</th><th>Visits missing</th><th>Last seen</th></tr></thead>
              <tbody>
                {missing.data.results.map((r) => (
                  <tr key={`${r.shop ?? ''}|${r.sku}`}>
                    <td>{r.shop_name ?? r.shop ?? '—'}</td>
                    <td><button type="button" className="link" onClick={() => open(`Visits of ${r.shop_name ?? r.shop ?? 'no shop'} missing ${r.sku_name}`, { shop: r.shop ?? '', sku: r.sku })}>{r.sku_name}</button></td>
                    <td>{r.visits}</td><td>{r.last_seen ? r.last_seen.slice(0, 10) : 'never'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
        </section>

        <section className="panel" aria-labelledby="share-title">
          <h3 id="share-title">Share of shelf by brand</h3>
          {share.data && (share.data.results.length === 0 ? <Empty>No product identified in this range.</Empty> : (
            <>
              <Suspense fallback={<Loading what="the chart" />}>
                <ShareChart results={share.data.results} />
              </Suspense>
              <table className="figures" aria-label="Share of shelf">
                <thead><tr><th>Brand</th><th>Facings</th><th>Share</th></tr></thead>
                <tbody>
                  {share.data.results.map((r) => (
                    <tr key={r.brand ?? ''}>
                      <td>{r.brand ? <button type="button" className="link" onClick={() => change({ ...filter, brand: r.brand ?? '' })}>{r.brand_name ?? r.brand}</button> : 'No brand'}</td>
                      <td>{r.facings}</td><td>{(r.share * 100).toFixed(1)}%</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <p className="hint">Not identified: {share.data.unknown_facings} facings.</p>
            </>
          ))}
        </section>

        <section className="panel" aria-labelledby="agents-title">
          <h3 id="agents-title">Auditors</h3>
          {agents.data && (agents.data.results.length === 0 ? <Empty>No visits in this range.</Empty> : (
            <table className="figures" aria-label="Auditors">
              <thead><tr><th>Auditor</th><th>Visits</th><th>Photos</th><th>Flagged</th><th>Retaken</th></tr></thead>
              <tbody>
                {agents.data.results.map((r) => (
                  <tr key={r.agent ?? ''}>
                    <td>{r.agent ? <button type="button" className="link" onClick={() => open(`Visits of ${r.agent_name ?? r.agent}`, { agent: r.agent ?? '' })}>{r.agent_name ?? r.agent}</button> : 'No agent'}</td>
                    <td>{r.visits}</td><td>{r.photos}</td><td>{r.flagged}</td><td>{r.retaken}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
        </section>
      </div>
    </section>
  );
}
