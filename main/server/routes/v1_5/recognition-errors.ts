// /api/v1.5/recognition_error/: messages about an SKU in a scene, with confirmation images; POST and list.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envelope, pageOf, readFormPaging } from '../../http/pagination.js';
import { createSceneMessage, listSceneMessages } from '../../recognition/scene-messages.js';
import { Envelope, PageQueryProperties, errorResponses } from '../../schemas/common.js';
import { RecognitionErrorBody, SceneMessageItem } from '../../schemas/recognition.js';

const route: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['recognition_error'];
  app.post('/recognition_error/', {
    schema: { tags, summary: 'Create a recognition error message', body: RecognitionErrorBody, response: { 201: Type.Object({ recognition_error_id: Type.String() }), ...errorResponses } },
  }, async (request, reply) => {
    const id = await createSceneMessage(app.db, 'recognition_errors', request.body);
    reply.code(201);
    return { recognition_error_id: id };
  });
  app.get('/recognition_error/', {
    schema: {
      tags,
      summary: 'List recognition error messages (filter: scene)',
      querystring: Type.Object({ ...PageQueryProperties, scene: Type.Optional(Type.String({ maxLength: 255 })) }),
      response: { 200: Envelope(SceneMessageItem), ...errorResponses },
    },
    preValidation: readFormPaging,
  }, async (request) => {
    const query = request.query;
    const page = pageOf(query);
    const { count, results } = await listSceneMessages(app.db, 'recognition_errors', page, query.scene);
    return envelope(request, page, count, results);
  });
};
export default route;
