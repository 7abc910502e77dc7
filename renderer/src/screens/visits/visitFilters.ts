// The visits list's filters: new or acknowledged, agent, day, shop.
import type { Visit } from '../../api/types';

export interface VisitFilter {
  status: 'all' | 'new' | 'acknowledged';
  agent: string;
  /** yyyy-mm-dd, a day in the viewer's time zone; blank for any day. */
  date: string;
  shop: string;
}

export const NO_FILTER: VisitFilter = { status: 'all', agent: '', date: '', shop: '' };

function localDay(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** `isNew` says per visit id whether the Data API flags it new; unknown visits count as new. */
export function filterVisits(visits: readonly Visit[], filter: VisitFilter, isNew: (id: string) => boolean | undefined): Visit[] {
  return visits.filter((v) => {
    const fresh = isNew(v.id) ?? true;
    if (filter.status === 'new' && !fresh) return false;
    if (filter.status === 'acknowledged' && fresh) return false;
    if (filter.agent && v.agent !== filter.agent) return false;
    if (filter.shop && v.shop !== filter.shop) return false;
    if (filter.date && (!v.started_date || localDay(v.started_date) !== filter.date)) return false;
    return true;
  });
}

export function distinct(values: Array<string | null | undefined>): string[] {
  return [...new Set(values.filter((v): v is string => !!v))].sort((a, b) => a.localeCompare(b));
}
