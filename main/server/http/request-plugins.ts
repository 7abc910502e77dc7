// What runs on every request, registered in one list (docs/api.md, "What a request passes through").
// Each is a named plugin (fastify-plugin: its hooks and decorators land on the application itself,
// not a scope of their own). Hooks of one kind run in the order they were added, and a scope copies
// its parent's hooks when it is created, so this list comes before any route and its order is the
// order of the hooks; a plugin registered before one it depends on fails at start.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { ChangeStamp, StampSet, TableStamp } from '../storage/change-stamp.js';
import type { Database } from '../storage/schema.js';
import { authPlugin } from './auth.js';
import { bodyAdmissionPlugin } from './body-admission.js';
import { bodyParsersPlugin } from './body.js';
import { hostCheckPlugin } from './client-errors.js';
import { durableAnswersPlugin } from './durable-answers.js';
import { errorHandlerPlugin } from './errors.js';
import { notFoundPlugin } from './method-not-allowed.js';
import { pageCachePlugin } from './page-cache.js';
import { rateLimitPlugin } from './rate-limit.js';
import { recordCachePlugin } from './record-cache.js';
import { requestStampPlugin } from './request-stamp.js';
import { rolesPlugin } from './roles.js';

export interface RequestPluginsOptions {
  db: Kysely<Database>;
  /** The database's change stamp: what the caches compare. */
  changeStamp: ChangeStamp;
  /** The API keys' stamp: what the verified keys are kept under. */
  keyStamp: ChangeStamp;
  /** One table's stamp: what the record cache compares for a table's records. */
  tableStamp: TableStamp;
  /** Both, read together: what a request reads once. */
  stampSet: () => StampSet | Promise<StampSet>;
  /** The built web UI, for the not-found handler's fallback to index.html. */
  webRoot: string | null;
}

export async function registerRequestPlugins(app: FastifyInstance, { db, changeStamp, keyStamp, tableStamp, stampSet, webRoot }: RequestPluginsOptions): Promise<void> {
  // onRequest: a request without Host is refused before anything else runs.
  await app.register(hostCheckPlugin);
  // onSend: first, so every answer of every route (404 and errors included) waits for its WAL sync.
  await app.register(durableAnswersPlugin, { db });
  // The stamps each request reads once; the caches and the key check depend on them.
  await app.register(requestStampPlugin, { changeStamp, keyStamp, tableStamp, stampSet });
  await app.register(pageCachePlugin);
  await app.register(recordCachePlugin);
  await app.register(errorHandlerPlugin);
  // onRoute, before any route: every path's methods, for 405 and Allow.
  await app.register(notFoundPlugin, { webRoot });
  // Content-type parsers; preValidation (multipart parts, nulls), preHandler (unsafe values).
  await app.register(bodyParsersPlugin);
  // onRequest: the token, then the key's role.
  await app.register(authPlugin, { db });
  await app.register(rolesPlugin);
  // preParsing: large bodies wait for a slot.
  await app.register(bodyAdmissionPlugin);
  // Route-level onRequest, after the global ones: /recognize's limit per key.
  await app.register(rateLimitPlugin);
}
