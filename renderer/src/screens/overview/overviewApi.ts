// The overview's reads (/api/app/v1/overview/...): the figures for a date range and filters, the
// visits behind one figure, and the downloads (period CSV/XLSX, a visit's PDF) fetched with the key.
import type { Static } from 'typebox';
import type { ApiClient, Query } from '../../api/client';
import { buildPath } from '../../api/client';
import type {
  AgentList, KpiSeries, MissingList, ReviewQueue, ShareOfShelf, StoreList, VisitList,
} from '../../../../main/server/schemas/overview.js';

export type KpiSeriesAnswer = Static<typeof KpiSeries>;
export type StoreListAnswer = Static<typeof StoreList>;
export type MissingListAnswer = Static<typeof MissingList>;
export type ShareAnswer = Static<typeof ShareOfShelf>;
export type AgentListAnswer = Static<typeof AgentList>;
export type ReviewQueueAnswer = Static<typeof ReviewQueue>;
export type VisitListAnswer = Static<typeof VisitList>;
export type OverviewVisit = VisitListAnswer['results'][number];

export interface OverviewFilter {
  date_from: string;
  date_to: string;
  shop: string;
  display: string;
  brand: string;
  category: string;
  agent: string;
  review: string;
}

/** What a figure narrows to when clicked: its visits are listed. */
export interface Drill {
  label: string;
  query: Query;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** The last 30 days, today included. */
export function defaultFilter(now = new Date()): OverviewFilter {
  return { date_from: day(new Date(now.getTime() - 29 * 86_400_000)), date_to: day(now), shop: '', display: '', brand: '', category: '', agent: '', review: '' };
}

export const filterQuery = (f: OverviewFilter): Query => ({ ...f });

const BASE = '/api/app/v1/overview';

export const overviewApi = {
  kpis: (api: ApiClient, q: Query, signal?: AbortSignal) => api.get<KpiSeriesAnswer>(`${BASE}/kpis/`, q, signal),
  stores: (api: ApiClient, q: Query, signal?: AbortSignal) => api.get<StoreListAnswer>(`${BASE}/stores/`, { limit: 50, ...q }, signal),
  missing: (api: ApiClient, q: Query, signal?: AbortSignal) => api.get<MissingListAnswer>(`${BASE}/missing/`, { limit: 50, ...q }, signal),
  share: (api: ApiClient, q: Query, signal?: AbortSignal) => api.get<ShareAnswer>(`${BASE}/share/`, q, signal),
  agents: (api: ApiClient, q: Query, signal?: AbortSignal) => api.get<AgentListAnswer>(`${BASE}/agents/`, { limit: 50, ...q }, signal),
  queue: (api: ApiClient, q: Query, signal?: AbortSignal) => api.get<ReviewQueueAnswer>(`${BASE}/review_queue/`, q, signal),
  visits: (api: ApiClient, q: Query, signal?: AbortSignal) => api.get<VisitListAnswer>(`${BASE}/visits/`, q, signal),
};

/** Saves a server file (the key goes in the header, so not a plain link) under `name`. */
export async function download(api: ApiClient, path: string, query: Query, name: string): Promise<void> {
  const blob = await api.fetchBlob(api.url(buildPath(path, query)));
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const exportPeriod = (api: ApiClient, f: OverviewFilter, format: 'csv' | 'xlsx') =>
  download(api, `${BASE}/export/`, { ...filterQuery(f), format }, `visits-${f.date_from}-${f.date_to}.${format}`);

export const visitPdf = (api: ApiClient, visit: string) =>
  download(api, `${BASE}/visits/${encodeURIComponent(visit)}/report/`, {}, `visit-${visit}.pdf`);
