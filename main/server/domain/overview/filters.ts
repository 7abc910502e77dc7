// The overview's filters: a bounded date range and optional shop, display, brand, category, agent and
// review status. Checked here, free of HTTP: a reversed or missing range, a malformed date, a value
// that names nothing stored is a ValidationError naming the parameter (a 400 in DRF's shape).
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import { ValidationError, messages } from '../errors.js';

/** The longest range one query may cover: a year and a day, so a leap year's range fits. */
export const MAX_RANGE_DAYS = 366;

export const REVIEW_STATES = ['unreviewed', 'in_review', 'reviewed'] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

/** The query parameters as they arrive (strings), before checking. */
export interface OverviewQuery {
  date_from?: string;
  date_to?: string;
  shop?: string;
  display?: string;
  brand?: string;
  category?: string;
  agent?: string;
  review?: string;
}

export interface OverviewFilters {
  /** First day, YYYY-MM-DD (visits' started_date from its start, UTC). */
  from: string;
  /** Last day, YYYY-MM-DD, included. */
  to: string;
  /** The day after `to`: the range's exclusive end as compared with started_date. */
  end: string;
  shop?: string;
  display?: string;
  brand?: string;
  category?: string;
  agent?: string;
  review?: ReviewState;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function parseDay(name: string, value: string | undefined): Date {
  if (value === undefined || value === '') throw new ValidationError({ [name]: [`${messages.required} Give a day as YYYY-MM-DD: the range must be bounded.`] });
  const d = new Date(`${value}T00:00:00Z`);
  if (!DAY.test(value) || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value) {
    throw new ValidationError({ [name]: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'] });
  }
  return d;
}

export const dayOf = (d: Date): string => d.toISOString().slice(0, 10);
export const addDays = (d: Date, n: number): Date => new Date(d.getTime() + n * 86_400_000);

/** Checks the query's filters; those naming records are looked up. */
export async function readFilters(db: Kysely<Database>, q: OverviewQuery): Promise<OverviewFilters> {
  const from = parseDay('date_from', q.date_from);
  const to = parseDay('date_to', q.date_to);
  if (to < from) throw new ValidationError({ date_to: [`date_to (${q.date_to}) is before date_from (${q.date_from}).`] });
  const days = Math.round((to.getTime() - from.getTime()) / 86_400_000) + 1;
  if (days > MAX_RANGE_DAYS) throw new ValidationError({ date_to: [`The range covers ${days} days; at most ${MAX_RANGE_DAYS} may be asked at once.`] });
  const out: OverviewFilters = { from: dayOf(from), to: dayOf(to), end: dayOf(addDays(to, 1)) };
  if (q.review !== undefined && q.review !== '') {
    if (!(REVIEW_STATES as readonly string[]).includes(q.review)) {
      throw new ValidationError({ review: [`"${q.review}" is not a valid choice: one of ${REVIEW_STATES.join(', ')}.`] });
    }
    out.review = q.review as ReviewState;
  }
  const records = [
    ['display', 'displays'],
    ['brand', 'brands'],
    ['category', 'categories'],
  ] as const;
  for (const [name, table] of records) {
    const value = q[name];
    if (value === undefined || value === '') continue;
    const row = await db.selectFrom(table).select('id').where('id', '=', value).executeTakeFirst();
    if (!row) throw new ValidationError({ [name]: [messages.doesNotExist(value)] });
    out[name] = value;
  }
  // Shops and agents are visits' own values: unknown when no visit ever named them.
  for (const name of ['shop', 'agent'] as const) {
    const value = q[name];
    if (value === undefined || value === '') continue;
    const row = await db.selectFrom('visits').select('id').where(name, '=', value).limit(1).executeTakeFirst();
    if (!row) throw new ValidationError({ [name]: [`No visit has ${name} "${value}".`] });
    out[name] = value;
  }
  return out;
}
