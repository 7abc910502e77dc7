// /api/v1.5/reports/: list and read reports; force_update recomputes reports (and re-delivers them
// to the scene's webhook).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { envelope, pageOf, readFormPaging } from '../../http/pagination.js';
import { forceUpdate, getReport, listReports } from '../../scenes/recognize.js';
import { Envelope, IdParams, PageQueryProperties, errorResponses } from '../../schemas/common.js';
import { ForceUpdateBody, ForceUpdateResult, ReportItem, ReportListQuery } from '../../schemas/recognition.js';
import { Type } from 'typebox';

const reports: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['reports'];
  app.get('/reports/', {
    schema: {
      tags,
      summary: 'List reports (filters: visit, scene, report_type, status)',
      querystring: Type.Object({ ...PageQueryProperties, ...ReportListQuery.properties }),
      response: { 200: Envelope(ReportItem), ...errorResponses },
    },
    preValidation: readFormPaging,
  }, async (request) => {
    const query = request.query;
    const page = pageOf(query);
    const { count, results } = await listReports(app.db, page, query);
    return envelope(request, page, count, results);
  });
  app.get('/reports/:id/', {
    schema: { tags, summary: 'Read a report', params: IdParams, response: { 200: ReportItem, ...errorResponses } },
  }, async (request) => getReport(app.db, request.params.id));
  app.post('/reports/force_update/', {
    schema: { tags, summary: 'Recompute reports and deliver them again', body: ForceUpdateBody, response: { 200: ForceUpdateResult, ...errorResponses } },
  }, async (request) => {
    const ids = await forceUpdate(app.db, request.body.reports);
    app.recognitionWorker?.notify();
    return { reports: ids };
  });
};
export default reports;
