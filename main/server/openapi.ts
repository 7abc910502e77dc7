// The OpenAPI 3.1 description of both APIs, generated from the TypeBox schemas that validate the
// requests: JSON at /api/schema/, Swagger UI at /api/docs/. Both are public (no token).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { routeNeedsAuth } from './http/auth.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './http/pagination.js';

const description = `Shelf Audit's embedded server: the Image Recognition API v1.5 (/api/v1.5/), the Data API
v1.0 (/api/data/v1.0/) and the app's own endpoints (/api/app/v1/).

- Auth: \`Authorization: Token <key>\` on every call except /health, /api/schema/ and /api/docs/.
  /recognize and /recognition_error demand it too.
- Trailing slashes are optional. Bodies may be JSON, application/x-www-form-urlencoded or
  multipart/form-data (list fields repeat the key in form bodies).
- Lists: \`limit\` (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}) and \`offset\`, in the query string or
  a form body; out-of-range values get 400. Envelope {count, next, previous, results}.
- Errors are DRF's: {"field": ["message"]} for validation (400), {"detail": "..."} otherwise.
- v1.5 ids are strings, chosen by the client on create or UUIDv7; Data API ids are per-instance integers.
- PUT and PATCH both update only the fields sent (the interface lists every field as optional); a new
  \`id\` renames the record and every reference to it.`;

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Shelf Audit API', version, description },
      components: {
        securitySchemes: {
          Token: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Token <API key>' },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      const out = { ...(schema as Record<string, unknown>) };
      // Every write takes the three body types DRF parses (the import route lists its own).
      if (out.body && !out.consumes) out.consumes = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];
      if (routeNeedsAuth(route.config as { auth?: boolean })) out.security = [{ Token: [] }];
      return { schema: out, url };
    },
  });
}

/** Registers the routes serving the description; call after every API route is registered. */
export async function registerOpenApiRoutes(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, auth: false };
    });
    scope.get('/api/schema/', { schema: { hide: true } }, async () => app.swagger());
    await scope.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });
  });
}
