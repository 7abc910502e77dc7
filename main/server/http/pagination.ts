// DRF's LimitOffsetPagination envelope: {count, next, previous, results} with absolute next/previous
// URLs built from the request URL (other query parameters kept, limit and offset replaced).
import type { FastifyRequest } from 'fastify';
import type { Page } from '../domain/resource.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
/** Offsets beyond this are refused as absurd (a 4xx, as the issue asks, rather than DRF's silent 0). */
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
 * The interface's examples send limit/offset as form fields, even on GET. Fastify does not read GET
 * bodies, so list routes read a small urlencoded body here and let the query string win.
 */
export async function readFormPaging(request: FastifyRequest): Promise<void> {
  const type = String(request.headers['content-type'] ?? '');
  if (request.method !== 'GET' || !type.startsWith('application/x-www-form-urlencoded')) return;
  let text = '';
  for await (const chunk of request.raw) {
    text += chunk;
    if (text.length > FORM_LIMIT) break;
  }
  const form = new URLSearchParams(text);
  const query = request.query as Record<string, unknown>;
  for (const key of ['limit', 'offset']) {
    const value = form.get(key);
    if (value !== null && query[key] === undefined) query[key] = value;
  }
}
