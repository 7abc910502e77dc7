// /api/v1.5/oos_reason/: messages about an SKU in a scene, with confirmation images; POST and list.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envelope, pageOf, readFormPaging } from '../../http/pagination.js';
import { createSceneMessage, listSceneMessages } from '../../recognition/scene-messages.js';
import { Envelope, PageQueryProperties, errorResponses } from '../../schemas/common.js';
import { OosReasonBody, SceneMessageItem } from '../../schemas/recognition.js';

const route: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['oos_reason'];
  app.post('/oos_reason/', {
    schema: { tags, summary: 'Create a oos reason message', body: OosReasonBody, response: { 201: Type.Object({ oos_reason_id: Type.String() }), ...errorResponses } },
  }, async (request, reply) => {
    const id = await createSceneMessage(app.db, 'oos_reasons', request.body);
    reply.code(201);
    return { oos_reason_id: id };
  });
  app.get('/oos_reason/', {
    schema: {
      tags,
      summary: 'List oos reason messages (filter: scene)',
      querystring: Type.Object({ ...PageQueryProperties, scene: Type.Optional(Type.String({ maxLength: 255 })) }),
      response: { 200: Envelope(SceneMessageItem), ...errorResponses },
    },
    preValidation: readFormPaging,
  }, async (request) => {
    const query = request.query;
    const page = pageOf(query);
    const { count, results } = await listSceneMessages(app.db, 'oos_reasons', page, query.scene);
    return envelope(request, page, count, results);
  });
};
export default route;
