// /api/app/v1/devices/ on the central: enrol a laptop (its key is in this one answer only), list,
// revoke. Admin API keys only.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createDevice, listDevices, revokeDevice } from '../../domain/devices.js';
import { envelope, pageOf, readFormPaging } from '../../http/pagination.js';
import { requireRole } from '../../http/roles.js';
import { Envelope, IdParams, PageQuery, errorResponses } from '../../schemas/common.js';
import { DeviceCreate, DeviceCreated, DeviceItem } from '../../schemas/sync.js';
import { write } from '../../storage/transaction.js';

const devices: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['app: devices'];
  const preHandler = requireRole('admin');
  app.get('/devices/', {
    preValidation: readFormPaging,
    preHandler,
    schema: { tags, summary: 'List enrolled devices (never their keys)', querystring: PageQuery, response: { 200: Envelope(DeviceItem), ...errorResponses } },
  }, async (request) => {
    const page = pageOf(request.query);
    const all = await listDevices(app.db);
    return envelope(request, page, all.length, all.slice(page.offset, page.offset + page.limit));
  });
  app.post('/devices/', {
    preHandler,
    schema: { tags, summary: 'Enrol a device: the answer holds its key, shown once', body: DeviceCreate, response: { 201: DeviceCreated, ...errorResponses } },
  }, async (request, reply) => {
    reply.code(201);
    return write(app.db, (ctx) => createDevice(ctx, request.body));
  });
  app.delete('/devices/:id/', {
    preHandler,
    schema: { tags, summary: 'Revoke a device: its key is refused from now on', params: IdParams, response: { 200: DeviceItem, ...errorResponses } },
  }, async (request) => write(app.db, (ctx) => revokeDevice(ctx, request.params.id)));
};
export default devices;
