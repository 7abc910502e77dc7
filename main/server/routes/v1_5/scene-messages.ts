// /api/v1.5/recognition_error/ and /api/v1.5/oos_reason/: messages about an SKU in a scene, with
// confirmation images. The two differ only in their path, body and the name of the id they answer.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envelope, pageOf, readFormPaging } from '../../http/pagination.js';
import { createSceneMessage, listSceneMessages } from '../../scenes/messages.js';
import { Envelope, PageQueryProperties, errorResponses } from '../../schemas/common.js';
import { OosReasonBody, RecognitionErrorBody, SceneMessageItem } from '../../schemas/recognition.js';

interface MessageRoute {
  path: 'recognition_error' | 'oos_reason';
  table: 'recognition_errors' | 'oos_reasons';
  label: string;
  body: typeof RecognitionErrorBody | typeof OosReasonBody;
}

const kinds: MessageRoute[] = [
  { path: 'recognition_error', table: 'recognition_errors', label: 'recognition error', body: RecognitionErrorBody },
  { path: 'oos_reason', table: 'oos_reasons', label: 'out-of-stock reason', body: OosReasonBody },
];

const route: FastifyPluginAsyncTypebox = async (app) => {
  for (const kind of kinds) {
    const tags = [kind.path];
    const idField = `${kind.path}_id`;
    app.post(`/${kind.path}/`, {
      schema: {
        tags,
        summary: `Create a ${kind.label} message`,
        body: kind.body,
        response: { 201: Type.Object({ [idField]: Type.String() }), ...errorResponses },
      },
    }, async (request, reply) => {
      const id = await createSceneMessage(app.db, kind.table, request.body);
      reply.code(201);
      return { [idField]: id };
    });
    app.get(`/${kind.path}/`, {
      schema: {
        tags,
        summary: `List ${kind.label} messages (filter: scene)`,
        querystring: Type.Object({ ...PageQueryProperties, scene: Type.Optional(Type.String({ maxLength: 255 })) }),
        response: { 200: Envelope(SceneMessageItem), ...errorResponses },
      },
      preValidation: readFormPaging,
    }, async (request) => {
      const query = request.query;
      const page = pageOf(query);
      const { count, results } = await listSceneMessages(app.db, kind.table, page, query.scene);
      return envelope(request, page, count, results);
    });
  }
};
export default route;
