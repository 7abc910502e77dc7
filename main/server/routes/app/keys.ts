// /api/app/v1/keys/: list, create (the key is in this one answer only), revoke. Admin keys only
// (http/roles.ts); a key created here records its creator, whose rate-limit bucket it shares.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createApiKey, listApiKeys, revokeApiKey } from '../../domain/api-keys.js';
import { envelope, pageOf, readFormPaging } from '../../http/pagination.js';
import { requireRole } from '../../http/roles.js';
import { ApiKeyCreate, ApiKeyCreated, ApiKeyListItem } from '../../schemas/app.js';
import { Envelope, IdParams, Ok, PageQuery, errorResponses } from '../../schemas/common.js';
import { write } from '../../storage/transaction.js';

const keys: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['app: keys'];
  const preHandler = requireRole('admin');
  app.get('/keys/', {
    preValidation: readFormPaging,
    preHandler,
    schema: { tags, summary: 'List API keys (never the keys themselves, nor any part of their secret)', querystring: PageQuery, response: { 200: Envelope(ApiKeyListItem), ...errorResponses } },
  }, async (request) => {
    const page = pageOf(request.query);
    const all = await listApiKeys(app.db);
    const shown = all.slice(page.offset, page.offset + page.limit).map((k) => ({ ...k, current: k.id === request.apiKey?.id }));
    return envelope(request, page, all.length, shown);
  });
  app.post('/keys/', {
    preHandler,
    schema: { tags, summary: 'Create an API key (role default integration)', body: ApiKeyCreate, response: { 201: ApiKeyCreated, ...errorResponses } },
  }, async (request, reply) => {
    const { name, role } = request.body;
    const created = await write(app.db, (ctx) => createApiKey(ctx, { name: name ?? null, role: role ?? 'integration', creator: request.apiKey ?? undefined }));
    reply.code(201);
    return created;
  });
  app.delete('/keys/:id/', {
    preHandler,
    schema: { tags, summary: 'Revoke an API key', params: IdParams, response: { 200: Ok, ...errorResponses } },
  }, async (request) => {
    await write(app.db, (ctx) => revokeApiKey(ctx, request.params.id));
    return { result: 'OK' as const };
  });
};
export default keys;
