// POST /api/v1.5/recognize/: queue the recognition of a scene; 201 at once with the report ids.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { recognizeRouteConfig } from '../../http/rate-limit.js';
import { recognize } from '../../scenes/recognize.js';
import { visitQuality } from '../../scenes/photo-quality.js';
import { errorResponses } from '../../schemas/common.js';
import { RecognizeBody, RecognizeCreated } from '../../schemas/recognition.js';

const recognizeRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/recognize/', {
    config: recognizeRouteConfig,
    schema: {
      tags: ['recognition'],
      summary: 'Recognize a scene: creates the scene (and a visit unless one is named), one NOT_READY report per type, and queues the work',
      body: RecognizeBody,
      response: { 201: RecognizeCreated, ...errorResponses },
    },
  }, async (request, reply) => {
    const result = await recognize(app.db, request.body);
    app.recognitionWorker?.notify();
    const [scene] = await visitQuality(app.db, app.dataDir, result.visit, result.scene, app.objectStore);
    reply.code(201);
    return { ...result, quality: scene?.photos ?? [] };
  });
};
export default recognizeRoute;
