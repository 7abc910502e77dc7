// Nothing read from the database leaves before it is on disk (storage/wal-sync.ts): every answer waits
// for a WAL sync covering what the request may have read, i.e. every commit visible when it is sent.
// A route whose answer is only what its write() returned says so (`answerOf`): that write was answered
// after a sync that began after its commit, which covers everything the request read before or inside
// it, so the answer goes without waiting for the commits of later groups.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { durable } from '../storage/wal-sync.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `answerOf`: the answer is a write's result and reads nothing after it. */
    answeredByWrite: boolean;
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
    app.addHook('onSend', (request, reply, payload, done) => {
      const synced = request.answeredByWrite ? null : durable(db);
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
