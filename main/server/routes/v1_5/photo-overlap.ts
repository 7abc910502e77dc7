// /api/v1.5/uploads/overlap/: how a photo just added to a bay overlaps the one before
// (scenes/photo-overlap.ts), shown while the auditor is still at the shelf.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { photoOverlap } from '../../scenes/photo-overlap.js';
import { errorResponses } from '../../schemas/common.js';
import { PhotoOverlapAnswer, PhotoOverlapBody } from '../../schemas/recognition.js';

const overlap: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/uploads/overlap/', {
    schema: {
      tags: ['recognition'],
      summary: "A new photo's overlap with the one before, by a quick registration of the two (no detection)",
      body: PhotoOverlapBody,
      response: { 200: PhotoOverlapAnswer, ...errorResponses },
    },
  }, async (request) => photoOverlap(app.db, app.dataDir, app.objectStore, request.body.previous, request.body.next));
};
export default overlap;
