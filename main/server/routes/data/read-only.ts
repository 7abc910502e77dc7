// The Data API's read-only families (tasks, categories, brands, KPIs, SKUs): list and by-id, one
// generic plugin over a DataView.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TSchema } from 'typebox';
import { getData, listData, type DataView } from '../../domain/data-api.js';
import { envelope, pageOf, readFormPaging } from '../../http/pagination.js';
import { DataIdParams, Envelope, PageQuery, errorResponses } from '../../schemas/common.js';

export interface DataReadOptions {
  /** Collection path with trailing slash, e.g. `/brands/`. */
  path: string;
  view: DataView;
  item: TSchema;
  /** Further by-id paths for the same records (the interface also spells `/brand/{id}`). */
  detailAliases?: string[];
}

export function dataReadRoutes(o: DataReadOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = [`data: ${o.path.replaceAll('/', '')}`];
    app.get(o.path, {
      schema: { tags, summary: `List ${o.view.label} records`, querystring: PageQuery, response: { 200: Envelope(o.item), ...errorResponses } },
      preValidation: readFormPaging,
    }, async (request, reply) => {
      const page = pageOf(request.query);
      return app.pageCache.send(request, reply, page, async () => {
        const { count, results } = await listData(app.db, o.view, page);
        return envelope(request, page, count, results);
      });
    });
    for (const path of [o.path, ...(o.detailAliases ?? [])]) {
      app.get(`${path}:id/`, {
        schema: { tags, summary: `Read a ${o.view.label}`, params: DataIdParams, response: { 200: o.item, ...errorResponses } },
      }, async (request) => getData(app.db, o.view, request.params.id));
    }
  };
}
