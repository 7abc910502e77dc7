// The database's change stamps as of a request (storage/change-stamp.ts): each read once, after the
// request arrived, and shared by everything that serves it from a cache (list pages and records use
// the data stamp, the key check the key stamp). On PostgreSQL a stamp is a round trip; one per
// request, not one per cache, and both stamps come from the same query. A table's stamp (what the
// record cache keeps a self-contained resource's records under) is read once per request and table.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ChangeStamp, TableStamp } from '../storage/change-stamp.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** A fresh read of the stamp: what a cache compares after computing, before keeping. */
    changeStamp: ChangeStamp;
    /** A fresh read of the API keys' stamp. */
    keyStamp: ChangeStamp;
    /** A fresh read of one table's stamp. */
    tableStamp: TableStamp;
  }
  interface FastifyRequest {
    stampRead: Promise<string | null> | null;
    keyStampRead: Promise<string | null> | null;
    tableStampReads: Map<string, Promise<string | null>> | null;
  }
}

export interface RequestStampOptions {
  /** The database's change stamp (OpenDatabase.changeStamp). */
  changeStamp: ChangeStamp;
  /** The API keys' stamp (OpenDatabase.keyStamp). */
  keyStamp: ChangeStamp;
  /** One table's stamp (OpenDatabase.tableStamp). */
  tableStamp: TableStamp;
}

/** Decorates the stamps and their per-request reads; every cache and the key check depend on it. */
export const requestStampPlugin = fp(
  async (app: FastifyInstance, { changeStamp, keyStamp, tableStamp }: RequestStampOptions) => {
    app.decorate('changeStamp', changeStamp);
    app.decorate('keyStamp', keyStamp);
    app.decorate('tableStamp', tableStamp);
    app.decorateRequest('tableStampReads', null);
    app.decorateRequest('stampRead', null);
    app.decorateRequest('keyStampRead', null);
  },
  { name: 'shelf-audit-request-stamp' },
);

/** The stamp as of this request: read on first use, the same for the rest of the request. */
export function requestStamp(request: FastifyRequest): Promise<string | null> {
  return (request.stampRead ??= Promise.resolve(request.server.changeStamp()));
}

/** One table's stamp as of this request, likewise. */
export function requestTableStamp(request: FastifyRequest, table: string): Promise<string | null> {
  const reads = (request.tableStampReads ??= new Map());
  let read = reads.get(table);
  if (!read) reads.set(table, (read = Promise.resolve(request.server.tableStamp(table))));
  return read;
}

/** The API keys' stamp as of this request, likewise. */
export function requestKeyStamp(request: FastifyRequest): Promise<string | null> {
  return (request.keyStampRead ??= Promise.resolve(request.server.keyStamp()));
}
