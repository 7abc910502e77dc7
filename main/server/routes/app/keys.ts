// /api/app/v1/keys/: list, create (the key is in this one answer only), revoke.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createApiKey, listApiKeys, revokeApiKey } from '../../domain/api-keys.js';
import { envelope, pageOf, readFormPaging } from '../../http/pagination.js';
import { ApiKeyCreate, ApiKeyCreated, ApiKeyItem } from '../../schemas/app.js';
import { Envelope, IdParams, Ok, PageQuery, errorResponses } from '../../schemas/common.js';
import { write } from '../../storage/transaction.js';

const keys: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['app: keys'];
  app.get('/keys/', {
    preValidation: readFormPaging,
    schema: { tags, summary: 'List API keys (never the keys themselves)', querystring: PageQuery, response: { 200: Envelope(ApiKeyItem), ...errorResponses } },
  }, async (request) => {
    const page = pageOf(request.query);
    const all = await listApiKeys(app.db);
    return envelope(request, page, all.length, all.slice(page.offset, page.offset + page.limit));
  });
  app.post('/keys/', {
    schema: { tags, summary: 'Create an API key', body: ApiKeyCreate, response: { 201: ApiKeyCreated, ...errorResponses } },
  }, async (request, reply) => {
    const { name } = request.body;
    reply.code(201);
    return write(app.db, (ctx) => createApiKey(ctx, { name: name ?? null }));
  });
  app.delete('/keys/:id/', {
    schema: { tags, summary: 'Revoke an API key', params: IdParams, response: { 200: Ok, ...errorResponses } },
  }, async (request) => {
    await write(app.db, (ctx) => revokeApiKey(ctx, request.params.id));
    return { result: 'OK' as const };
  });
};
export default keys;
