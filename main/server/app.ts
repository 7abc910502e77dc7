// Assembles the Fastify application: wire conventions (bodies, errors, auth, 405), the OpenAPI
// description, every route family, the web UI and the scene's plugin. server.ts listens on it.
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import './context.js';
import { resolveConfig, type ServerConfig } from './config/config.js';
import { BODY_LIMIT } from './http/body.js';
import { registerRequestPlugins } from './http/request-plugins.js';
import { registerWebUi } from './http/web-ui.js';
import { warmUpPlugin, WARM_UP_REQUESTS } from './http/warm-up.js';
import { LazySchemas, SCHEMAS_IDLE_MS } from './http/lazy-schemas.js';
import { registerOpenApi, registerOpenApiRoutes } from './openapi.js';
import health from './routes/health.js';
import { registerRoutes } from './routes/index.js';
import type { ChangeStamp, StampSet, TableStamp } from './storage/change-stamp.js';
import type { Database } from './storage/schema.js';
import { ObjectStore } from './storage/object-store.js';
import { APP_VERSION } from './config/version.js';
import scenesPlugin from './scenes/plugin.js';
import { ID_MAX_ENCODED_LENGTH } from './schemas/common.js';
import { clientErrorHandler, frameworkErrors } from './http/client-errors.js';
import { registerSync } from './sync/plugin.js';
import type { EngineOptions } from './sync/engine.js';

export interface AppOptions {
  db: Kysely<Database>;
  /** For reads only (OpenDatabase.readDb); default `db`. */
  readDb?: Kysely<Database>;
  config: ServerConfig;
  /** The database's change stamp (OpenDatabase.changeStamp); without it list pages are not cached. */
  changeStamp?: ChangeStamp;
  /** The API keys' stamp (OpenDatabase.keyStamp); without it every request's key is looked up. */
  keyStamp?: ChangeStamp;
  /** One table's stamp (OpenDatabase.tableStamp); without it a table's stamp is the whole database's. */
  tableStamp?: TableStamp;
  /** Both, read together (OpenDatabase.stampSet). */
  stampSet?: () => StampSet | Promise<StampSet>;
  /** The laptop's sync engine timing and photo transfer (sync/engine.ts). */
  sync?: EngineOptions;
}

export async function buildApp({ db, readDb = db, config: given, changeStamp = () => null, keyStamp = () => null, tableStamp = () => changeStamp(), stampSet = () => ({ data: changeStamp, table: tableStamp, keys: keyStamp }), sync }: AppOptions): Promise<FastifyInstance> {
  const config = resolveConfig(given);
  const schemas = new LazySchemas();
  const app = Fastify({
    logger: config.logger,
    bodyLimit: BODY_LIMIT,
    // find-my-way caps a path parameter at 100 characters by default: ids of 101 to 255 could be created but never read.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: ID_MAX_ENCODED_LENGTH },
    // DRF reports every invalid field at once; form bodies need string -> number coercion.
    ajv: { customOptions: { allErrors: true, coerceTypes: 'array' } },
    // Validators and serializers compiled on first use and by the warm-up, not before listening.
    schemaController: { compilersFactory: schemas.compilersFactory },
    // Errors before routing answer in DRF's shape too (http/client-errors.ts).
    clientErrorHandler,
    frameworkErrors,
    http: { requireHostHeader: false },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.decorate('db', db);
  app.decorate('readDb', readDb);
  app.decorate('dataDir', config.dataDir);
  app.decorate('serverConfig', config);
  // Only a central keeps its photos in a bucket: a laptop's are its own files, offline.
  const bucket = config.role === 'central' && config.settings.objectStore ? await ObjectStore.open(config.settings.objectStore) : null;
  app.decorate('objectStore', bucket);
  if (bucket) app.addHook('onClose', async () => bucket.destroy());
  // What runs on a request, in order, before any route (docs/api.md, "What a request passes through").
  await registerRequestPlugins(app, { db, changeStamp, keyStamp, tableStamp, stampSet, webRoot: config.webRoot });
  await registerOpenApi(app, APP_VERSION);
  // Before the routes, which add what a fresh server should prepare as it starts listening.
  await app.register(warmUpPlugin);

  await app.register(health);
  await registerRoutes(app);
  // The scene's lifecycle: the analysis thread, the job worker and the webhook sender.
  await app.register(scenesPlugin);
  await registerSync(app, sync);
  await registerOpenApiRoutes(app);
  if (config.webRoot) await registerWebUi(app, config.webRoot);
  app.decorate('lazySchemas', schemas);
  // Last, and only once no request came for a second: the first screen's requests compile what they
  // use themselves, without the rest of the routes' compiling beside them.
  // On the HTTP server itself: a hook added here would not reach the routes' plugins registered above.
  let lastRequest = performance.now();
  app.server.on('request', () => {
    lastRequest = performance.now();
  });
  const closing = new AbortController();
  app.addHook('preClose', (done) => {
    closing.abort();
    done();
  });
  // After the lists' data (the tasks the routes added): the request path, for V8 to compile it while
  // the app's page loads its scripts (those requests do not end it). A client's first API request
  // ends it: from then on the clients' own requests warm the same code, and the warm-up's would only
  // take turns from them (under a load that starts as the server listens, they made its first
  // seconds slower: docs/api.md, "Cold start"). Not when the server warmed that path before it
  // listened (`serve`: server.ts, config.warmUpBeforeListen).
  if (config.warmUpBeforeListen === 0) {
    let apiAsked = false;
    const onRequest = (request: { url?: string }) => {
      if (!request.url?.startsWith('/api/')) return;
      apiAsked = true;
      app.server.off('request', onRequest);
    };
    app.server.on('request', onRequest);
    app.warmUp('requests', () => app.warmUpRequests({ requests: WARM_UP_REQUESTS, stop: () => apiAsked }));
  }
  // Before listening (the warm-up before listen, server.ts) no request can come: all at once.
  app.warmUp('schemas', () => schemas.compileAll({ idle: () => !app.server.listening || performance.now() - lastRequest > SCHEMAS_IDLE_MS, signal: closing.signal }));
  return app;
}
