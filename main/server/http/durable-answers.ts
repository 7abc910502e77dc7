// Nothing read from the database leaves before it is on disk (storage/wal-sync.ts): every answer waits
// for a WAL sync covering what the request may have read, i.e. every commit visible when it is sent.
// A route whose answer is only what its write() returned says so (`answerOf`): that write was answered
// after a sync that began after its commit, which covers everything the request read before or inside
// it, so the answer goes without waiting for the commits of later groups. A route whose answer shows
// only some tables' rows says which (`readsOnly`): it waits only if one of them changed since the last
// sync that ended (storage/wal-sync.ts, pendingFor), so a SKU page does not wait for a brand's commit.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { durable, durableTables } from '../storage/wal-sync.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `answerOf`: the answer is a write's result and reads nothing after it. */
    answeredByWrite: boolean;
    /** Set by `readsOnly`: the only tables whose rows the answer shows. */
    readTables: readonly string[] | null;
  }
}

export interface DurableAnswersOptions {
  db: Kysely<any>;
}

/**
 * The onSend gate. Registered first (http/request-plugins.ts): a scope copies its parent's hooks when it
 * is created, so every route, whatever its scope, and the 404 and error answers pass through it, and
 * it is the first onSend hook each of them runs.
 */
export const durableAnswersPlugin = fp(
  async (app: FastifyInstance, { db }: DurableAnswersOptions) => {
    app.decorateRequest('answeredByWrite', false);
    app.decorateRequest('readTables', null);
    app.addHook('onSend', (request, reply, payload, done) => {
      const synced = request.answeredByWrite ? null : request.readTables ? durableTables(db, request.readTables) : durable(db);
      if (!synced) return done(null, payload);
      synced.then(
        () => done(null, payload),
        // The sync failed: the connection is cut, nothing is sent.
        (error: unknown) => {
          request.log.error({ err: error }, 'WAL sync failed; answer withheld');
          reply.raw.destroy();
        },
      );
    });
  },
  { name: 'shelf-audit-durable-answers' },
);

/**
 * The result of `written` (a write()), marking the request as answered by it: the handler must send
 * that result (or what it computes from it) without reading the database again. A failed write's
 * error is answered through the usual wait.
 */
export async function answerOf<T>(request: FastifyRequest, written: Promise<T>): Promise<T> {
  const value = await written;
  request.answeredByWrite = true;
  return value;
}

/**
 * Marks the request's answer as showing the rows of `tables` only (and what the key check read): it
 * then waits only for the sync of a commit that changed one of them. The route must read nothing else.
 */
export function readsOnly(request: FastifyRequest, tables: readonly string[]): void {
  request.readTables = tables;
}
