// /api/app/v1/overview/...: the supervisors' overview across visits (docs/api.md, "Overview"): KPIs
// over time, stores worst first, missing must-haves, share of shelf, auditors, the review queue, the
// visits behind any figure, and the period's export (CSV, XLSX). Every read is over the facts
// projected when each visit was written (domain/overview/projection.ts), through the page cache.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError } from '../../domain/errors.js';
import { exportPeriod, EXPORT_FORMATS, type ExportFormat } from '../../domain/exports/period.js';
import { visitReport } from '../../domain/exports/visit-report.js';
import { readFilters, type OverviewFilters, type OverviewQuery } from '../../domain/overview/filters.js';
import { factsReady } from '../../domain/overview/projection.js';
import { agentsOverview, kpiSeries, missing, reviewQueue, shareByBrand, stores, visitsOf, type Bucket } from '../../domain/overview/queries.js';
import { envelope, pageOf } from '../../http/pagination.js';
import { IdParams, errorResponses } from '../../schemas/common.js';
import {
  AgentList, ExportQuery, KpiSeries, KpiSeriesQuery, MissingList, OverviewPageQuery, OverviewQuery as OverviewQuerySchema, ReviewQueue, ShareOfShelf,
  StoreList, VisitList, VisitsBehindQuery,
} from '../../schemas/overview.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

const overview: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['app: overview'];
  // The visits stored before migration 0030 are projected once, from the start rather than at the first read.
  app.addHook('onReady', async () => {
    factsReady(app.db).catch((error: unknown) => app.log.error({ err: error }, 'overview: projecting the stored visits failed; the next overview read tries again'));
  });

  /** The checked filters, once the facts of the visits stored before migration 0030 are projected. */
  async function prepare(query: OverviewQuery): Promise<OverviewFilters> {
    const filters = await readFilters(app.db, query);
    await factsReady(app.db);
    return filters;
  }
  const cached = (request: FastifyRequest, reply: FastifyReply, page: { limit: number; offset: number }, compute: () => Promise<unknown>) =>
    app.pageCache.send(request, reply, page, compute);

  app.get('/overview/kpis/', {
    schema: { tags, summary: 'Visit KPIs over time (OSA, planogram and price compliance, facings), per day, week or month', querystring: KpiSeriesQuery, response: { 200: KpiSeries, ...errorResponses } },
  }, async (request, reply) => {
    const f = await prepare(request.query);
    const bucket: Bucket = request.query.bucket ?? 'day';
    return cached(request, reply, { limit: 0, offset: 0 }, async () => ({ date_from: f.from, date_to: f.to, bucket, ...(await kpiSeries(app.db, f, bucket)) }));
  });

  app.get('/overview/stores/', {
    schema: { tags, summary: 'Per shop: visits and mean KPIs, worst OSA first', querystring: OverviewPageQuery, response: { 200: StoreList, ...errorResponses } },
  }, async (request, reply) => {
    const f = await prepare(request.query);
    const page = pageOf(request.query);
    return cached(request, reply, page, async () => {
      const { count, results } = await stores(app.db, f, page);
      return envelope(request, page, count, results);
    });
  });

  app.get('/overview/missing/', {
    schema: { tags, summary: 'Must-have products missing, by shop, most often missing first, with when each was last seen', querystring: OverviewPageQuery, response: { 200: MissingList, ...errorResponses } },
  }, async (request, reply) => {
    const f = await prepare(request.query);
    const page = pageOf(request.query);
    return cached(request, reply, page, async () => {
      const { count, results } = await missing(app.db, f, page);
      return envelope(request, page, count, results);
    });
  });

  app.get('/overview/share/', {
    schema: { tags, summary: 'Share of shelf (identified facings) by brand', querystring: OverviewQuerySchema, response: { 200: ShareOfShelf, ...errorResponses } },
  }, async (request, reply) => {
    const f = await prepare(request.query);
    return cached(request, reply, { limit: 0, offset: 0 }, () => shareByBrand(app.db, f));
  });

  app.get('/overview/agents/', {
    schema: { tags, summary: 'Per auditor: visits, photos, photos flagged and retaken; most flagged first', querystring: OverviewPageQuery, response: { 200: AgentList, ...errorResponses } },
  }, async (request, reply) => {
    const f = await prepare(request.query);
    const page = pageOf(request.query);
    return cached(request, reply, page, async () => {
      const { count, results } = await agentsOverview(app.db, f, page);
      return envelope(request, page, count, results);
    });
  });

  app.get('/overview/review_queue/', {
    schema: { tags, summary: 'The visits that most need a person, first (unreviewed, unknown products, low scores, flagged photos)', querystring: OverviewPageQuery, response: { 200: ReviewQueue, ...errorResponses } },
  }, async (request, reply) => {
    const f = await prepare(request.query);
    const page = pageOf(request.query);
    return cached(request, reply, page, async () => {
      const { count, counts, results } = await reviewQueue(app.db, f, page);
      const { results: _, ...links } = envelope(request, page, count, results);
      return { ...links, counts, results };
    });
  });

  app.get('/overview/visits/', {
    schema: { tags, summary: 'The visits behind a figure (filters; a period; a missing product), latest first', querystring: VisitsBehindQuery, response: { 200: VisitList, ...errorResponses } },
  }, async (request, reply) => {
    const { period, bucket, sku } = request.query;
    if (period !== undefined && (!DAY.test(period) || Number.isNaN(Date.parse(`${period}T00:00:00Z`)))) {
      throw new ValidationError({ period: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'] });
    }
    if (sku !== undefined && !(await app.db.selectFrom('skus').select('id').where('id', '=', sku).executeTakeFirst())) {
      throw new ValidationError({ sku: [`Invalid pk "${sku}" - object does not exist.`] });
    }
    // Checked before the facts are brought up to date: a refused request writes nothing.
    const f = await prepare(request.query);
    const page = pageOf(request.query);
    return cached(request, reply, page, async () => {
      const { count, results } = await visitsOf(app.db, f, { page, period, bucket, sku });
      return envelope(request, page, count ?? 0, results);
    });
  });

  app.get('/overview/export/', {
    schema: {
      tags,
      summary: 'The filtered visits with their figures as a spreadsheet: CSV or XLSX, streamed',
      querystring: ExportQuery,
      response: {
        200: {
          description: 'One row per visit, latest first (an empty period: the header row alone)',
          content: {
            'text/csv': { schema: { type: 'string' } },
            'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
          },
        },
        ...errorResponses,
      },
    },
  }, async (request, reply) => {
    const format = request.query.format as ExportFormat;
    if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
      throw new ValidationError({ format: [`"${request.query.format}" is not a valid choice: one of ${EXPORT_FORMATS.join(', ')}.`] });
    }
    const f = await prepare(request.query);
    // Stops reading visits as soon as the client goes: the stream is destroyed with the connection.
    const abort = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    const { stream, contentType } = exportPeriod(app.db, f, format, abort.signal);
    return reply
      .type(contentType)
      .header('content-disposition', `attachment; filename="visits-${f.from}-${f.to}.${format}"`)
      // The body is the stream; the documented 200 is not JSON, so no serializer applies.
      .send(stream as never);
  });
  app.get('/overview/visits/:id/report/', {
    schema: {
      tags,
      summary: "A visit as a PDF for a customer: photos with the recognised boxes, facings, compliance, the actions to take, review status",
      params: IdParams,
      response: { 200: { description: 'The PDF, streamed', content: { 'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } } } }, ...errorResponses },
    },
  }, async (request, reply) => {
    const abort = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    const stream = await visitReport(app.db, app.dataDir, request.params.id, abort.signal);
    const file = request.params.id.replace(/[^\w.-]+/g, '_').slice(0, 80);
    return reply.type('application/pdf').header('content-disposition', `attachment; filename="visit-${file}.pdf"`).send(stream as never);
  });
};
export default overview;
