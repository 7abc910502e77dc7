// /api/data/v1.0/visits/: list (filters is_new, cid, agent, datetime_gte), detail, ack, kpivalue.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getDataVisit, listDataVisits, setKpiValue } from '../../domain/data-visits.js';
import { ackVisit } from '../../domain/visits.js';
import { envelope, pageOf, readFormPaging } from '../../http/pagination.js';
import { write } from '../../storage/transaction.js';
import { DataIdParams, Envelope, Ok, errorResponses } from '../../schemas/common.js';
import { DataVisit, DataVisitDetail, DataVisitQuery, KpiValueBody, KpiValueResult } from '../../schemas/data-api.js';

const dataVisits: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['data: visits'];
  app.get('/visits/', {
    schema: { tags, summary: 'List visits (only new ones unless is_new=false)', querystring: DataVisitQuery, response: { 200: Envelope(DataVisit), ...errorResponses } },
    preValidation: readFormPaging,
  }, async (request) => {
    const page = pageOf(request.query);
    const { count, results } = await listDataVisits(app.db, page, request.query);
    return envelope(request, page, count, results);
  });
  app.get('/visits/:id/', {
    schema: { tags, summary: 'Read a visit with its KPI values and scenes', params: DataIdParams, response: { 200: DataVisitDetail, ...errorResponses } },
  }, async (request) => getDataVisit(app.db, request.params.id, app.visitScenes));
  app.post('/visits/:id/ack/', {
    schema: { tags, summary: 'Acknowledge a visit: it leaves the is_new list until its next update', params: DataIdParams, response: { 200: Ok, ...errorResponses } },
  }, async (request) => {
    await write(app.db, (ctx) => ackVisit(ctx, request.params.id));
    return { result: 'OK' as const };
  });
  app.post('/visits/:id/kpivalue/', {
    schema: { tags, summary: 'Set the value of a KPI for a category in the visit', params: DataIdParams, body: KpiValueBody, response: { 200: KpiValueResult, ...errorResponses } },
  }, async (request) =>
    write(app.db, (ctx) => setKpiValue(ctx, request.params.id, request.body)),
  );
};
export default dataVisits;
