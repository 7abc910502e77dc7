// The v1.5 master-data families (catalogs, SKUs, displays, planograms, MHLs and their records,
// visits) share one HTTP shape: list with the envelope, create, read, PUT/PATCH, sometimes DELETE.
// One generic plugin serves them all from a ResourceDef and its schemas.
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type, type TObject, type TSchema } from 'typebox';
import { createRecord, deleteRecord, getRecord, listRecords, updateRecord, type ResourceDef } from '../domain/resource.js';
import { envelope, pageOf, readFormPaging, type PageQuery as PageQueryValue } from '../http/pagination.js';
import { write, type WriteContext } from '../storage/transaction.js';
import { Created, Envelope, IdParams, Ok, PageQueryProperties, errorResponses } from '../schemas/common.js';

type Row = Record<string, unknown>;
export type Method = 'list' | 'create' | 'get' | 'put' | 'patch' | 'delete';

export interface CrudOptions {
  /** Collection path with its trailing slash, e.g. `/brands/`. */
  path: string;
  def: ResourceDef;
  tag: string;
  /** Response schema of one record (by-id GET, PUT/PATCH; list items unless listItem is given). */
  item: TSchema;
  listItem?: TSchema;
  createBody: TObject;
  updateBody: TObject;
  methods: Method[];
  /** 'result' answers 201 {result: "CREATED", id}; 'record' answers 201 with the created record. */
  createResponse?: 'result' | 'record';
  /** Extra list filters: query parameter -> API field compared for equality. */
  filters?: Record<string, { field: string; schema: TSchema; description?: string }>;
  /** Domain functions replacing the generic ones (visits reset is_new on update, ...). */
  create?: (ctx: WriteContext, body: Row) => Promise<Row>;
  update?: (ctx: WriteContext, id: string, body: Row) => Promise<Row>;
  /** Reshapes a record for the by-id GET (MHL adds `musthavelist`), with its schema. */
  detail?: (record: Row) => Row;
  detailItem?: TSchema;
}

export function crudRoutes(o: CrudOptions): FastifyPluginAsync {
  return async (app: FastifyInstance) => {
    const db = app.db;
    const has = (m: Method) => o.methods.includes(m);
    const byId = `${o.path}:id/`;
    const tags = [o.tag];
    const create = o.create ?? ((ctx, body) => createRecord(ctx, o.def, body));
    const update = o.update ?? ((ctx, id, body) => updateRecord(ctx, o.def, id, body));

    if (has('list')) {
      const filterProps = Object.fromEntries(
        Object.entries(o.filters ?? {}).map(([k, f]) => [k, Type.Optional(f.schema)]),
      );
      app.get(o.path, {
        schema: {
          tags,
          summary: `List ${o.def.label} records`,
          querystring: Type.Object({ ...PageQueryProperties, ...filterProps }),
          response: { 200: Envelope(o.listItem ?? o.item), ...errorResponses },
        },
        preValidation: readFormPaging,
      }, async (request: FastifyRequest, reply) => {
        const query = request.query as PageQueryValue & Row;
        const page = pageOf(query);
        const filters: Row = {};
        for (const [param, f] of Object.entries(o.filters ?? {})) filters[f.field] = query[param];
        return app.pageCache.send(request, reply, page, async () => {
          const { count, results } = await listRecords(db, o.def, page, filters);
          return envelope(request, page, count, results);
        });
      });
    }
    if (has('create')) {
      app.post(o.path, {
        schema: {
          tags,
          summary: `Create a ${o.def.label}`,
          body: o.createBody,
          response: { 201: o.createResponse === 'record' ? o.item : Created, ...errorResponses },
        },
      }, async (request, reply) => {
        const record = await write(db, (ctx) => create(ctx, request.body as Row));
        reply.code(201);
        return o.createResponse === 'record' ? record : { result: 'CREATED', id: record.id };
      });
    }
    if (has('get')) {
      app.get(byId, {
        schema: { tags, summary: `Read a ${o.def.label}`, params: IdParams, response: { 200: o.detailItem ?? o.item, ...errorResponses } },
      }, async (request) => {
        const record = await getRecord(db, o.def, (request.params as { id: string }).id);
        return o.detail ? o.detail(record) : record;
      });
    }
    for (const method of ['put', 'patch'] as const) {
      if (!has(method)) continue;
      app.route({
        method: method.toUpperCase() as 'PUT' | 'PATCH',
        url: byId,
        schema: {
          tags,
          summary: `Update a ${o.def.label} (${method === 'put' ? 'PUT' : 'PATCH'}: fields left out keep their value; a new id renames it)`,
          params: IdParams,
          body: o.updateBody,
          response: { 200: o.item, ...errorResponses },
        },
        handler: async (request) =>
          write(db, (ctx) => update(ctx, (request.params as { id: string }).id, request.body as Row)),
      });
    }
    if (has('delete')) {
      app.delete(byId, {
        schema: { tags, summary: `Delete a ${o.def.label}`, params: IdParams, response: { 200: Ok, ...errorResponses } },
      }, async (request) => {
        await write(db, (ctx) => deleteRecord(ctx, o.def, (request.params as { id: string }).id));
        return { result: 'OK' };
      });
    }
  };
}
