// /api/app/v1/photo_quality/: the quality of a visit's photos (review, the visit screens) and the
// thresholds the checks compare against (the Settings screen). docs/recognition.md, "Photo quality".
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ValidationError } from '../../domain/errors.js';
import { readThresholds, saveThresholds } from '../../domain/photo-quality.js';
import { visitQuality, worstMark } from '../../scenes/photo-quality.js';
import { visitExists, visitsWithScenes } from '../../scenes/queries.js';
import { errorResponses } from '../../schemas/common.js';
import { QualityThresholds, QualityThresholdsPatch, VisitMarks, VisitMarksQuery, VisitQuality, VisitQualityQuery, VisitsByMark, VisitsByMarkQuery } from '../../schemas/quality.js';

/** Visits whose marks one request may ask for: one page of the visit list. */
const MAX_VISITS = 100;
/** Visits a filter by mark looks through, the latest first: marks are judged when asked, never stored. */
const FILTER_VISITS = 500;

const photoQuality: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['app: photo quality'];

  app.get('/photo_quality/settings/', {
    schema: { tags, summary: 'The thresholds the photo checks compare against', response: { 200: QualityThresholds, ...errorResponses } },
  }, async () => readThresholds(app.db));

  for (const method of ['patch', 'put'] as const) {
    app[method]('/photo_quality/settings/', {
      schema: {
        tags,
        summary: 'Change some thresholds (the others keep their values); out of range: 400 naming the field',
        body: QualityThresholdsPatch,
        response: { 200: QualityThresholds, ...errorResponses },
      },
    }, async (request) => saveThresholds(app.db, request.body));
  }

  app.get('/photo_quality/', {
    schema: { tags, summary: "Each photo's quality, scene by scene, for a visit (or one of its scenes)", querystring: VisitQualityQuery, response: { 200: VisitQuality, ...errorResponses } },
  }, async (request) => {
    const { visit, scene } = request.query;
    if (!(await visitExists(app.db, visit))) throw new ValidationError({ visit: [`Invalid pk "${visit}" - object does not exist.`] });
    const scenes = await visitQuality(app.db, app.dataDir, visit, scene, app.objectStore);
    return { visit, mark: worstMark(scenes), scenes };
  });

  app.get('/photo_quality/marks/', {
    schema: { tags, summary: 'The worst photo mark of each of these visits (to filter a page of visits)', querystring: VisitMarksQuery, response: { 200: VisitMarks, ...errorResponses } },
  }, async (request) => {
    const ids = [...new Set(request.query.visit__in.split(',').map((s) => s.trim()).filter(Boolean))];
    if (ids.length > MAX_VISITS) throw new ValidationError({ visit__in: [`Ask for at most ${MAX_VISITS} visits at once.`] });
    const out: { visit: string; mark: 'fine' | 'check' | 'retake' }[] = [];
    for (const visit of ids) {
      if (!(await visitExists(app.db, visit))) continue;
      out.push({ visit, mark: worstMark(await visitQuality(app.db, app.dataDir, visit, undefined, app.objectStore)) });
    }
    return out;
  });

  app.get('/photo_quality/visits/', {
    schema: { tags, summary: 'The visits whose worst photo mark is `mark` (to filter the visit list with `id__in`)', querystring: VisitsByMarkQuery, response: { 200: VisitsByMark, ...errorResponses } },
  }, async (request) => {
    const { mark } = request.query;
    const visits: string[] = [];
    for (const visit of await visitsWithScenes(app.db, FILTER_VISITS)) {
      if (worstMark(await visitQuality(app.db, app.dataDir, visit, undefined, app.objectStore)) === mark) visits.push(visit);
    }
    return { mark, visits };
  });
};
export default photoQuality;
