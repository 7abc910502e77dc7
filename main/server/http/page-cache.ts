// List pages answered from memory while the database is unchanged. Lists are read far more often than
// catalogs change (every screen, every client poll), and a page's cost is mostly SQLite building its
// rows; a page is kept, serialised, under the database's change stamp and served again only while the
// stamp is the same, so any write by this process or another (a CLI import) retires every cached page.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Page } from '../domain/resource.js';
import type { ChangeStamp } from '../storage/change-stamp.js';
import { requestStamp } from './request-stamp.js';

declare module 'fastify' {
  interface FastifyInstance {
    pageCache: PageCache;
  }
}

/** Bound on the serialised pages kept, in characters (a page of 100 SKUs is ~23 k; of 1000, ~230 k). */
export const PAGE_CACHE_BYTES = 16 * 1024 * 1024;

export interface PageCache {
  /**
   * Sends the page for this request: from the cache if current, else from compute(), then kept.
   * compute() answers the page, or a string: the page already serialised (http/record-cache.ts).
   */
  send(request: FastifyRequest, reply: FastifyReply, page: Page, compute: () => Promise<unknown>): Promise<FastifyReply>;
}

export function createPageCache(changeStamp: ChangeStamp, maxBytes = PAGE_CACHE_BYTES): PageCache {
  const pages = new Map<string, { stamp: string; body: string }>();
  let bytes = 0;
  const drop = (key: string) => {
    bytes -= pages.get(key)?.body.length ?? 0;
    pages.delete(key);
  };
  return {
    async send(request, reply, page, compute) {
      const stamp = await requestStamp(request);
      // Everything the answer depends on: the URL (filters, and next/previous are built from it and
      // the host) and the effective page, which a form body may have set.
      const key = `${request.protocol}://${request.host}${request.url}|${page.limit}|${page.offset}`;
      const hit = stamp === null ? undefined : pages.get(key);
      if (hit && hit.stamp === stamp) return reply.type('application/json; charset=utf-8').send(hit.body);
      const value = await compute();
      const body = typeof value === 'string' ? value : (reply.serialize(value) as string);
      // Kept only if no write landed while computing it.
      if (stamp !== null && body.length <= maxBytes && (await changeStamp()) === stamp) {
        drop(key);
        // Oldest first: Map keeps insertion order.
        while (bytes + body.length > maxBytes) drop(pages.keys().next().value!);
        pages.set(key, { stamp, body });
        bytes += body.length;
      }
      return reply.type('application/json; charset=utf-8').send(body);
    },
  };
}

export interface PageCacheOptions {
  maxBytes?: number;
}

/**
 * `app.pageCache`. Its stamps are the request stamp plugin's: a page is looked up under the stamp the
 * request read and kept only if a fresh read of the same stamp still agrees.
 */
export const pageCachePlugin = fp(
  async (app: FastifyInstance, options: PageCacheOptions) => {
    app.decorate('pageCache', createPageCache(app.changeStamp, options.maxBytes));
  },
  { name: 'shelf-audit-page-cache', dependencies: ['shelf-audit-request-stamp'] },
);
