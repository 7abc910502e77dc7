// The visits list's filters (new or acknowledged, agent, day, shop) as the query the server applies.
import type { Query } from '../../api/client';

export interface VisitFilter {
  status: 'all' | 'new' | 'acknowledged';
  agent: string;
  /** yyyy-mm-dd, a day in the viewer's time zone; blank for any day. */
  date: string;
  shop: string;
  /** The worst photo mark of the visit; blank for any. */
  quality: '' | 'fine' | 'check' | 'retake';
}

export const NO_FILTER: VisitFilter = { status: 'all', agent: '', date: '', shop: '', quality: '' };

export function isFiltered(filter: VisitFilter): boolean {
  return filter.status !== 'all' || !!filter.agent.trim() || !!filter.shop.trim() || !!filter.date || !!filter.quality;
}

/** The v1.5 visits list's filters; the day is the viewer's, so it travels as two instants. */
export function visitQuery(filter: VisitFilter): Query {
  const query: Query = {};
  if (filter.status !== 'all') query.is_new = filter.status === 'new';
  if (filter.agent.trim()) query.agent = filter.agent.trim();
  if (filter.shop.trim()) query.shop = filter.shop.trim();
  const [y, m, d] = filter.date.split('-').map(Number);
  if (y && m && d) {
    query.started_date__gte = new Date(y, m - 1, d).toISOString();
    query.started_date__lt = new Date(y, m - 1, d + 1).toISOString();
  }
  return query;
}
