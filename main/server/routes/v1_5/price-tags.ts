// /api/v1.5/scenes/{id}/price_tags/: a supervisor reads a scene's price tags per photo and corrects
// their price or link, guarded by each photo's version (scenes/price-review.ts); the reports follow.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { readPriceTags, savePriceTags } from '../../scenes/price-review.js';
import { IdParams, errorResponses } from '../../schemas/common.js';
import { PriceTagsPutBody, PriceTagsSaved, ScenePriceTags } from '../../schemas/prices.js';
import { ReviewConflict } from '../../schemas/review.js';

const priceTags: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['review'];
  app.get('/scenes/:id/price_tags/', {
    schema: {
      tags,
      summary: "Read a scene's price tags per photo (corrections laid over), with each photo's version",
      params: IdParams,
      response: { 200: ScenePriceTags, 409: ReviewConflict, ...errorResponses },
    },
  }, async (request) => readPriceTags(app.db, request.params.id));
  app.put('/scenes/:id/price_tags/', {
    schema: {
      tags,
      summary: "Replace the price-tag corrections of the photos sent (all or nothing); 409 when a version is stale; every report is built again",
      params: IdParams,
      body: PriceTagsPutBody,
      response: { 200: PriceTagsSaved, 409: ReviewConflict, ...errorResponses },
    },
  }, async (request) => {
    const saved = await savePriceTags(app.db, request.params.id, request.body.images, request.apiKey?.id ?? null);
    app.recognitionWorker?.notify();
    return saved;
  });
};
export default priceTags;
