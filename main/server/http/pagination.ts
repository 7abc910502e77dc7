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

export function envelope<T>(request: FastifyRequest, page: Page, count: number, results: T[]): Envelope<T> {
  const { limit, offset } = page;
  let next: string | null = null;
  let previous: string | null = null;
  if (offset + limit < count) {
    const url = requestUrl(request);
    url.searchParams.set('limit', String(limit));
    url.searchParams.set('offset', String(offset + limit));
    next = url.href;
  }
  if (offset > 0) {
    const url = requestUrl(request);
    url.searchParams.set('limit', String(limit));
    if (offset - limit <= 0) url.searchParams.delete('offset');
    else url.searchParams.set('offset', String(offset - limit));
    previous = url.href;
  }
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
