// DRF's LimitOffsetPagination envelope: {count, next, previous, results} with absolute next/previous
// URLs built from the request URL (other query parameters kept, limit and offset replaced).
import type { FastifyRequest } from 'fastify';
import type { Page } from '../domain/resource.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
/** Larger offsets are read as this one (an empty page), so the database never sees an absurd number. */
export const MAX_OFFSET = 2_147_483_647;
const FORM_LIMIT = 64 * 1024;

export interface PageQuery {
  limit?: number;
  offset?: number;
}

export function pageOf(query: PageQuery): Page {
  return { limit: query.limit ?? DEFAULT_PAGE_SIZE, offset: query.offset ?? 0 };
}

function requestUrl(request: FastifyRequest): URL {
  return new URL(request.url, `${request.protocol}://${request.host}`);
}

export interface Envelope<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** A query pair that URLSearchParams serialises as it is written (no escapes, no `+`). */
const PLAIN_PAIR = /^[A-Za-z0-9*._-]+=[A-Za-z0-9*._-]*$/;
/** A path that URL keeps as it is written (no escapes, no dot segments, not `//host`). */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9_~.\-/]*$/;
const DOT_SEGMENT = /(^|\/)\.\.?(\/|$)/;
/** `scheme://host` as URL writes it (lower case, default port left out), by the request's own text. */
const prefixes = new Map<string, string>();

function prefixOf(request: FastifyRequest): string {
  const base = `${request.protocol}://${request.host}`;
  let prefix = prefixes.get(base);
  if (prefix === undefined) {
    prefix = new URL('/', base).href.slice(0, -1);
    if (prefixes.size >= 64) prefixes.clear();
    prefixes.set(base, prefix);
  }
  return prefix;
}

/**
 * The request's URL with limit and offset set (offset null: left out), as `URL.searchParams.set` and
 * `delete` then `href` write it. WHATWG URL parsing and URLSearchParams cost several microseconds a
 * link, a tenth of a cached page's whole cost (issue 40's profile); a URL of plain characters (what
 * clients send) is rewritten as text, and any other goes through URL itself.
 */
function pageLink(request: FastifyRequest, limit: number, offset: number | null): string {
  const raw = request.url;
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const query = q < 0 ? '' : raw.slice(q + 1);
  const pairs = query === '' ? [] : query.split('&');
  if (!raw.includes('#') && PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path) && pairs.every((p) => PLAIN_PAIR.test(p))) {
    const set = (name: string, value: string | null) => {
      const at = pairs.findIndex((p) => p.startsWith(`${name}=`));
      // set(): the first pair takes the value, the others go; delete(): all go.
      const kept = pairs.filter((p, i) => i === at || !p.startsWith(`${name}=`));
      pairs.length = 0;
      pairs.push(...kept);
      const i = pairs.findIndex((p) => p.startsWith(`${name}=`));
      if (value === null) {
        if (i >= 0) pairs.splice(i, 1);
      } else if (i >= 0) pairs[i] = `${name}=${value}`;
      else pairs.push(`${name}=${value}`);
    };
    set('limit', String(limit));
    set('offset', offset === null ? null : String(offset));
    return `${prefixOf(request)}${path}${pairs.length > 0 ? `?${pairs.join('&')}` : ''}`;
  }
  const url = requestUrl(request);
  url.searchParams.set('limit', String(limit));
  if (offset === null) url.searchParams.delete('offset');
  else url.searchParams.set('offset', String(offset));
  return url.href;
}

export function envelope<T>(request: FastifyRequest, page: Page, count: number, results: T[]): Envelope<T> {
  const { limit, offset } = page;
  const next = offset + limit < count ? pageLink(request, limit, offset + limit) : null;
  const previous = offset > 0 ? pageLink(request, limit, offset - limit <= 0 ? null : offset - limit) : null;
  return { count, next, previous, results };
}

/**
 * Python's int() on a query value, as DRF's `_positive_int` reads it: optional spaces and sign, digits.
 * Anything else (`ten`, `1e400`, `Infinity`, `1.5`) is not a number to it.
 */
function integerOf(value: unknown): number | null {
  const text = Array.isArray(value) ? value.at(-1) : value; // a repeated parameter: Django reads the last
  if (typeof text !== 'string' && typeof text !== 'number') return null;
  const m = /^\s*([+-]?)(\d+)\s*$/.exec(String(text));
  if (!m) return null;
  const n = Number(m[2]);
  return m[1] === '-' ? -n : n;
}

/**
 * DRF's LimitOffsetPagination never refuses a page request (interface-notes.md): a limit that is not
 * a positive integer means the default page size, one over the maximum means the maximum, and an
 * offset that is not a non-negative integer means 0. Applied before validation, so the schemas'
 * bounds only document what a handler can receive.
 */
export function normalizePaging(query: Record<string, unknown>): void {
  if (query.limit !== undefined) {
    const limit = integerOf(query.limit);
    if (limit === null || limit <= 0) delete query.limit;
    else query.limit = String(Math.min(limit, MAX_PAGE_SIZE));
  }
  if (query.offset !== undefined) {
    const offset = integerOf(query.offset);
    if (offset === null || offset < 0) delete query.offset;
    else query.offset = String(Math.min(offset, MAX_OFFSET));
  }
}

/**
 * The preValidation hook of every paginated list. The interface's examples send limit/offset as form
 * fields, even on GET; Fastify does not read GET bodies, so a small urlencoded body is read here (the
 * query string wins). Then DRF's fallbacks apply (normalizePaging).
 */
export async function readFormPaging(request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown>;
  const type = String(request.headers['content-type'] ?? '');
  if (request.method === 'GET' && type.startsWith('application/x-www-form-urlencoded')) {
    let text = '';
    for await (const chunk of request.raw) {
      text += chunk;
      if (text.length > FORM_LIMIT) break;
    }
    const form = new URLSearchParams(text);
    for (const key of ['limit', 'offset']) {
      const value = form.get(key);
      if (value !== null && query[key] === undefined) query[key] = value;
    }
  }
  normalizePaging(query);
}
