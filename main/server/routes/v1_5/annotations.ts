// /api/v1.5/scenes/{id}/annotations/: a supervisor reads a scene's boxes per photo and replaces them
// with the corrected list, guarded by each photo's version (docs/recognition.md, "Review");
// /api/v1.5/scenes/{id}/corrections/ is the audit of those saves.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envelope, pageOf, readFormPaging } from '../../http/pagination.js';
import { listCorrections, readAnnotations, saveAnnotations } from '../../scenes/review.js';
import { suggestSkus } from '../../scenes/suggestions.js';
import { readSettings } from '../../sync/device-store.js';
import { Envelope, IdParams, PageQueryProperties, errorResponses } from '../../schemas/common.js';
import { AnnotationsPutBody, AnnotationsSaved, CorrectionItem, ReviewConflict, SceneAnnotations, SuggestionsAnswer, SuggestionsBody } from '../../schemas/review.js';

const annotations: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['review'];
  app.get('/scenes/:id/annotations/', {
    schema: {
      tags,
      summary: "Read a scene's boxes per photo, with each photo's version",
      params: IdParams,
      response: { 200: SceneAnnotations, 409: ReviewConflict, ...errorResponses },
    },
  }, async (request) => readAnnotations(app.db, request.params.id));
  app.put('/scenes/:id/annotations/', {
    schema: {
      tags,
      summary: 'Replace the boxes of the photos sent (all or nothing); 409 when a version is stale',
      params: IdParams,
      body: AnnotationsPutBody,
      response: { 200: AnnotationsSaved, 409: ReviewConflict, ...errorResponses },
    },
  }, async (request) => {
    // Learnt references are master data: a laptop that syncs leaves them to the central (sync/central/push.ts).
    const settings = app.serverConfig.role === 'central' ? {} : await readSettings(app.db);
    const learn = !(settings.central_url && settings.device_key);
    const saved = await saveAnnotations(app.db, request.params.id, request.body.images, request.apiKey?.id ?? null, { learn });
    app.recognitionWorker?.notify();
    return saved;
  });
  app.post('/scenes/:id/suggestions/', {
    schema: {
      tags,
      summary: "The identifier's best SKUs for a box drawn or moved by a reviewer, best first",
      params: IdParams,
      body: SuggestionsBody,
      response: { 200: SuggestionsAnswer, ...errorResponses },
    },
  }, async (request) => ({ suggestions: await suggestSkus(app.db, app.dataDir, app.recognitionAnalyzer, request.params.id, request.body, app.objectStore) }));
  app.get('/scenes/:id/corrections/', {
    schema: {
      tags,
      summary: "The audit of a scene's saved corrections (who, when, boxes before and after), oldest first",
      params: IdParams,
      querystring: Type.Object(PageQueryProperties),
      response: { 200: Envelope(CorrectionItem), ...errorResponses },
    },
    preValidation: readFormPaging,
  }, async (request) => {
    const page = pageOf(request.query);
    const { count, results } = await listCorrections(app.db, request.params.id, page);
    return envelope(request, page, count, results);
  });
};
export default annotations;
