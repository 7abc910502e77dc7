// The database's change stamps as of a request (storage/change-stamp.ts): each read once, after the
// request arrived, and shared by everything that serves it from a cache (list pages and records use
// the data stamp, the key check the key stamp). On PostgreSQL a stamp is a round trip; one per
// request, not one per cache: the key stamp, the data stamp and every table's stamp come from the
// same query (`stampSetOf`, started by the key check for a read). A table's stamp (what the record
// cache keeps a self-contained resource's records under) is taken once per request and table.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ChangeStamp, StampSet, TableStamp } from '../storage/change-stamp.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** A fresh read of the stamp: what a cache compares after computing, before keeping. */
    changeStamp: ChangeStamp;
    /** A fresh read of the API keys' stamp. */
    keyStamp: ChangeStamp;
    /** A fresh read of one table's stamp. */
    tableStamp: TableStamp;
    /** A fresh read of both, together. */
    stampSet: () => StampSet | Promise<StampSet>;
  }
  interface FastifyRequest {
    stampSetRead: Promise<StampSet> | null;
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
  /** Both, read together (OpenDatabase.stampSet). */
  stampSet: () => StampSet | Promise<StampSet>;
}

/** Decorates the stamps and their per-request reads; every cache and the key check depend on it. */
export const requestStampPlugin = fp(
  async (app: FastifyInstance, { changeStamp, keyStamp, tableStamp, stampSet }: RequestStampOptions) => {
    app.decorate('stampSet', stampSet);
    app.decorateRequest('stampSetRead', null);
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
  return (request.stampRead ??= stampSetOf(request).then((set) => set.data()));
}

/** The stamps as of this request, read together (on PostgreSQL, one query with the key stamp's). */
export function stampSetOf(request: FastifyRequest): Promise<StampSet> {
  return (request.stampSetRead ??= Promise.resolve(request.server.stampSet()));
}

/** One table's stamp as of this request, likewise. */
export function requestTableStamp(request: FastifyRequest, table: string): Promise<string | null> {
  const reads = (request.tableStampReads ??= new Map());
  let read = reads.get(table);
  if (!read) reads.set(table, (read = stampSetOf(request).then((set) => set.table(table))));
  return read;
}

/**
 * The API keys' stamp as of this request, likewise. A read takes it from the request's stamp set (on
 * SQLite one statement reads them all); a write reads it alone, so that its stamp set, read on first
 * use, is read after whatever the write did before (a write's caches must see its own write).
 */
export function requestKeyStamp(request: FastifyRequest): Promise<string | null> {
  const read = request.method === 'GET' || request.method === 'HEAD';
  return (request.keyStampRead ??= read ? stampSetOf(request).then((set) => set.keys()) : Promise.resolve(request.server.keyStamp()));
}
