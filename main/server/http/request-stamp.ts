// The database's change stamp as of a request (storage/change-stamp.ts): read once, after the request
// arrived, and shared by everything that serves it from a cache (the key check, list pages). On
// PostgreSQL a stamp is a round trip; one per request, not one per cache.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ChangeStamp } from '../storage/change-stamp.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** A fresh read of the stamp: what a cache compares after computing, before keeping. */
    changeStamp: ChangeStamp;
  }
  interface FastifyRequest {
    stampRead: Promise<string | null> | null;
  }
}

export function registerRequestStamp(app: FastifyInstance, changeStamp: ChangeStamp): void {
  app.decorate('changeStamp', changeStamp);
  app.decorateRequest('stampRead', null);
}

/** The stamp as of this request: read on first use, the same for the rest of the request. */
export function requestStamp(request: FastifyRequest): Promise<string | null> {
  return (request.stampRead ??= Promise.resolve(request.server.changeStamp()));
}
