// The OpenAPI 3.1 description of both APIs, generated from the TypeBox schemas that validate the
// requests: JSON at /api/schema/, Swagger UI at /api/docs/. Both are public (no token).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import { routeNeedsAuth } from './http/auth.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './http/pagination.js';

const description = `Shelf Audit's embedded server: the Image Recognition API v1.5 (/api/v1.5/), the Data API
v1.0 (/api/data/v1.0/) and the app's own endpoints (/api/app/v1/).

- Auth: \`Authorization: Token <key>\` on every call except /health, /api/schema/ and /api/docs/.
  /recognize and /recognition_error demand it too.
- Trailing slashes are optional. Bodies may be JSON, application/x-www-form-urlencoded or
  multipart/form-data (list fields repeat the key in form bodies).
- Lists: \`limit\` (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}) and \`offset\`, in the query string or
  a form body; out-of-range values get 400. Envelope {count, next, previous, results}. v1.5 lists also
  filter on their foreign keys and main fields (\`?display=\`, \`?brand=\`...), search (\`?search=\`) and sort
  (\`?ordering=name,-cid\`), as DRF does; each list names its parameters.
- Multipart bodies: file parts are named as the server reads them (\`datafile\` for /uploads/, \`image\`
  for an SKU's reference image).
- Errors are DRF's: {"field": ["message"]} for validation (400), {"detail": "..."} otherwise.
- v1.5 ids are strings, chosen by the client on create or UUIDv7; Data API ids are per-instance integers.
- PUT and PATCH both update only the fields sent (the interface lists every field as optional); a new
  \`id\` renames the record and every reference to it.`;

declare module 'fastify' {
  interface FastifySchema {
    /** Multipart parts the route reads as files: field name -> description (documented as binary parts). */
    multipartFiles?: Record<string, string>;
    /** Multipart text fields of a route whose other bodies are not an object of fields (the import). */
    multipartFields?: Record<string, TSchema>;
  }
}

type JsonSchema = Record<string, unknown> & { properties?: Record<string, unknown>; required?: string[] };

/**
 * A body's description per content type, multipart parts included: the files are binary parts beside
 * the body's other fields, named as the route reads them, so a generated client sends them there.
 */
function describeBody(schema: Record<string, unknown>): void {
  const files = schema.multipartFiles as Record<string, string> | undefined;
  const fields = schema.multipartFields as Record<string, TSchema> | undefined;
  delete schema.multipartFiles;
  delete schema.multipartFields;
  if (!files) return;
  const body = schema.body as JsonSchema | undefined;
  const consumes = (schema.consumes as string[] | undefined) ?? ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];
  const objectBody = body?.type === 'object' ? body : undefined;
  const multipart: JsonSchema = {
    type: 'object',
    properties: {
      ...(objectBody?.properties ?? {}),
      ...(fields ?? {}),
      ...Object.fromEntries(Object.entries(files).map(([name, description]) => [name, { type: 'string', contentMediaType: 'application/octet-stream', description }])),
    },
  };
  const content: Record<string, { schema: unknown }> = {};
  for (const type of consumes) {
    if (type === 'multipart/form-data') content[type] = { schema: multipart };
    else if (body) content[type] = { schema: type === 'text/csv' && !objectBody ? ((body.anyOf as unknown[] | undefined)?.find((s) => (s as JsonSchema).type === 'string') ?? body) : body };
  }
  schema.body = { content };
  delete schema.consumes;
}

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
      describeBody(out);
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
