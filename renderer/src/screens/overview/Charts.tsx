// The overview's charts (recharts, SVG), in a chunk of their own (OverviewScreen.tsx loads it lazily).
import { Bar, BarChart, CartesianGrid, ComposedChart, Legend, Line, Tooltip, XAxis, YAxis } from 'recharts';
import type { KpiSeriesAnswer, ShareAnswer } from './overviewApi';

/** Visits per period (bars, click: the period's visits) with mean OSA, planogram and price compliance (lines). */
export function KpiChart({ series, onPeriod }: { series: KpiSeriesAnswer['series']; onPeriod(period: string): void }) {
  return (
    <ComposedChart width={760} height={260} data={series} className="chart" aria-label="KPIs over time">
      <CartesianGrid strokeDasharray="3 3" />
      <XAxis dataKey="period" />
      <YAxis yAxisId="pct" domain={[0, 100]} />
      <YAxis yAxisId="visits" orientation="right" />
      <Tooltip />
      <Legend />
      <Bar yAxisId="visits" dataKey="visits" name="Visits" fill="#c9d6ea" onClick={(d) => {
        const period = (d as { payload?: { period?: string } }).payload?.period;
        if (period) onPeriod(period);
      }} />
      <Line yAxisId="pct" dataKey="osa" name="OSA %" stroke="#2e7d32" isAnimationActive={false} />
      <Line yAxisId="pct" dataKey="planogram" name="Planogram %" stroke="#1565c0" isAnimationActive={false} />
      <Line yAxisId="pct" dataKey="price" name="Price %" stroke="#ef6c00" isAnimationActive={false} connectNulls />
    </ComposedChart>
  );
}

/** Each brand's share of the identified facings, in percent. */
export function ShareChart({ results }: { results: ShareAnswer['results'] }) {
  return (
    <BarChart width={420} height={Math.max(120, results.length * 28)} data={results.map((r) => ({ ...r, name: r.brand_name ?? 'No brand', percent: Math.round(r.share * 1000) / 10 }))} layout="vertical" className="chart" aria-label="Share of shelf">
      <XAxis type="number" domain={[0, 100]} />
      <YAxis type="category" dataKey="name" width={110} />
      <Tooltip />
      <Bar dataKey="percent" name="Share %" fill="#1565c0" isAnimationActive={false} />
    </BarChart>
  );
}
