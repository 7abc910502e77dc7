// The v1.5 master-data families (catalogs, SKUs, displays, planograms, MHLs and their records,
// visits) share one HTTP shape: list with the envelope, create, read, PUT/PATCH, sometimes DELETE.
// One generic plugin serves them all from a ResourceDef and its schemas.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type, type Static, type TObject, type TSchema } from 'typebox';
import { deleteRecord, getRecord, listAllIds, listCount, listFilters, listPageIds, listRecords, insertRecord, recordsByDataId, rowVersions, updateRecord, versionedRecordsByDataId, type ListQuery, type ResourceDef } from '../domain/resource.js';
import { answerOf, readsOnly } from '../http/durable-answers.js';
import { envelope, pageOf, readFormPaging } from '../http/pagination.js';
import { jsonArrayInto } from '../http/json-bytes.js';
import { ORDER_MAX_IDS } from '../http/record-cache.js';
import { requestStamp, requestTableStamp } from '../http/request-stamp.js';
import { isPostgres } from '../storage/dialect.js';
import { write, type WriteContext } from '../storage/transaction.js';
import { Created, Envelope, IdParams, Ok, PageQuery, PageQueryProperties, errorResponses } from '../schemas/common.js';

type Row = Record<string, unknown>;
/** Pages within the first this many records of a list are read without computing its whole order. */
const FIRST_PAGES_IDS = 200;
/** How an envelope with no results ends once serialised (its schema puts `results` last). */
const RESULTS_TAIL = '[]}';
export type Method = 'list' | 'create' | 'get' | 'put' | 'patch' | 'delete';

/** Generic over its schemas: request bodies are typed by the schemas that validate them. */
export interface CrudOptions<Create extends TObject = TObject, Update extends TObject = TObject> {
  /** Collection path with its trailing slash, e.g. `/brands/`. */
  path: string;
  def: ResourceDef;
  tag: string;
  /** Response schema of one record (by-id GET, PUT/PATCH; list items unless listItem is given). */
  item: TObject;
  listItem?: TObject;
  createBody: Create;
  updateBody: Update;
  methods: Method[];
  /** 'result' answers 201 {result: "CREATED", id}; 'record' answers 201 with the created record. */
  createResponse?: 'result' | 'record';
  /** Domain functions replacing the generic ones (visits reset is_new on update, ...). */
  create?: (ctx: WriteContext, body: Static<Create>) => Promise<Row>;
  update?: (ctx: WriteContext, id: string, body: Static<Update>) => Promise<Row>;
  /**
   * The `?ordering=` the app's screens and pickers open this list on: its order is computed as the
   * server starts (http/warm-up.ts) rather than on the first request. Default: `name` where the list
   * sorts by name; `false`: none.
   */
  firstOrdering?: string | false;
  /** Reshapes a record for the by-id GET (MHL adds `musthavelist`), with its schema. */
  detail?: (record: Row) => Row;
  detailItem?: TSchema;
}

/** The record schema of one field, accepting no null: the type a filter on it takes. */
function filterSchema(item: TSchema, field: string, description: string): TSchema {
  const property = { ...((item as TObject).properties[field] as unknown as Record<string, unknown>) };
  if (Array.isArray(property.type)) property.type = property.type.find((t) => t !== 'null');
  delete property.format;
  return Type.Unsafe({ ...property, ...(property.type === 'string' ? { maxLength: 255 } : {}), description });
}

/** The list's query parameters beside limit/offset, from the resource's ListSpec: filters, search, ordering. */
export function listQueryProperties(def: ResourceDef, item: TSchema): Record<string, TSchema> {
  const out: Record<string, TSchema> = {};
  for (const [param, f] of Object.entries(listFilters(def))) {
    const schema =
      'column' in f
        ? Type.Boolean({ description: `Only records whose ${param} is this` })
        : f.match === 'day'
          ? Type.String({ format: 'date', description: `Only records whose ${f.field} falls on this UTC day (YYYY-MM-DD)` })
          : f.match === 'from' || f.match === 'before'
            ? Type.String({ format: 'date-time', description: `Only records whose ${f.field} is ${f.match === 'from' ? 'at or after' : 'before'} this instant` })
          : f.match === 'in'
            ? Type.String({ maxLength: 20_000, description: `Only records whose ${f.field} is one of these, comma-separated` })
            : filterSchema(item, f.field, `Only records whose ${f.field} is this`);
    out[param] = Type.Optional(schema);
  }
  if (def.list?.search?.length) {
    out.search = Type.Optional(
      Type.String({ maxLength: 255, description: `Only records with this text (case-insensitive) in ${def.list.search.join(', ')}` }),
    );
  }
  if (def.list?.ordering?.length) {
    const fields = def.list.ordering;
    out.ordering = Type.Optional(
      Type.String({
        maxLength: 255,
        description: `Sort by these comma-separated fields, \`-\` before one for descending: ${fields.join(', ')} (others are ignored); ties in creation order`,
      }),
    );
  }
  return out;
}

/** What a list's order depends on: its table and every query parameter but the page's. */
function orderKey(table: string, list: ListQuery): string {
  const params = Object.entries(list.filters ?? {}).filter(([k]) => k !== 'limit' && k !== 'offset');
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${table}?${JSON.stringify(params)}|${list.search ?? ''}|${list.ordering ?? ''}`;
}

/** The list's query beside limit/offset: the resource's filters, `search`, `ordering`. */
type ListQueryValue = Record<string, string | number | boolean | undefined>;

export function crudRoutes(o: CrudOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    const db = app.db;
    // Lists and by-id reads: on PostgreSQL a pool of their own (context.ts).
    const readDb = app.readDb;
    const has = (m: Method) => o.methods.includes(m);
    const byId = `${o.path}:id/`;
    const tags = [o.tag];
    const create = (body: Row) => (o.create ? write(db, (ctx) => o.create!(ctx, body)) : insertRecord(db, o.def, body));
    const update = o.update ?? ((ctx, id, body) => updateRecord(ctx, o.def, id, body));
    // A resource whose records show its own table's rows alone (no field read from another table, no
    // detail added) is cached under that table's stamp, so writes to other tables leave it kept, and
    // its answers wait only for the WAL sync of a commit to that table (or to the API keys, which the
    // key check read). Any other is cached under the whole database's stamp and waits for every commit.
    const ownTable = !o.detail && !Object.values(o.def.fields).some((f) => f.read) ? o.def.table : undefined;
    const shown = ownTable ? [ownTable, 'api_keys'] : null;
    const stampOf = (request: Parameters<typeof requestStamp>[0]) => (ownTable ? requestTableStamp(request, ownTable) : requestStamp(request));
    // A record showing its own row alone is that row's: on PostgreSQL it is kept with the row's version too.
    const byVersion = ownTable !== undefined && isPostgres(readDb);

    if (has('list')) {
      const firstOrdering = o.firstOrdering ?? (o.def.list?.ordering?.includes('name') ? 'name' : false);
      if (firstOrdering) {
        // Its pages and records, through the request path, once the lists' data are warm (http/warm-up.ts).
        app.warmUpList({ url: `${app.prefix}${o.path}`, ordering: firstOrdering, byId: has('get') });
        // The key a request with only `?ordering=` (and its page) has.
        const list: ListQuery = { filters: { ordering: firstOrdering }, ordering: firstOrdering };
        // Its count and first page, as a request would read them: the database's pages of the table's
        // index, and the code that reads them, are then warm.
        app.warmUp(`${o.def.table} by ${firstOrdering}`, async () => {
          const cached = app.recordCache.view(await (ownTable ? app.tableStamp(ownTable) : app.changeStamp()), ownTable);
          const key = orderKey(o.def.table, list);
          await listPageIds(readDb, o.def, { offset: 0, limit: FIRST_PAGES_IDS }, list, cached ? () => cached.count(key, () => listCount(readDb, o.def, list)) : undefined);
        });
      }
      const itemSchema = o.listItem ?? o.item;
      const query = Type.Object({ ...PageQueryProperties, ...listQueryProperties(o.def, itemSchema) });
      app.get(o.path, {
        schema: {
          tags,
          summary: `List ${o.def.label} records`,
          // Built from the resource's ListSpec: its static type is the page query plus named filters.
          querystring: Type.Unsafe<Static<typeof PageQuery> & ListQueryValue>(query),
          response: { 200: Envelope(itemSchema), ...errorResponses },
        },
        preValidation: readFormPaging,
      }, async (request, reply) => {
        const page = pageOf(request.query);
        const { search, ordering } = request.query;
        const list: ListQuery = { filters: request.query, search: search?.toString(), ordering: ordering?.toString() };
        // Records and list orders are kept while the database is unchanged (http/record-cache.ts), so
        // any page is a slice and a copy of serialised records, not a query and a serialisation.
        if (shown) readsOnly(request, shown);
        const cached = app.recordCache.view(await stampOf(request), ownTable);
        if (!cached) {
          const { count, results } = await listRecords(readDb, o.def, page, list);
          return envelope(request, page, count, results);
        }
        // The first pages (what a screen opens on) are read through the list's index, and its count
        // kept; the whole order (50,000 SKUs take a few hundred milliseconds on a slow laptop) only
        // once a client pages further, and only for a list asked for before under this stamp: where
        // writes move the stamp between any two reads (visits while devices push), each page is
        // one OFFSET query rather than the whole order read for one page.
        const key = orderKey(o.def.table, list);
        const order =
          page.offset + page.limit <= FIRST_PAGES_IDS || !cached.askedBefore(key)
            ? cached.keptOrder(key)
            : await cached.order(key, () => listAllIds(readDb, o.def, list, ORDER_MAX_IDS));
        const { count, ids } = order
          ? { count: order.length, ids: order.slice(page.offset, page.offset + page.limit) }
          : await listPageIds(readDb, o.def, page, list, () => cached.count(key, () => listCount(readDb, o.def, list)));
        const serialise = (row: Row) => reply.serializeInput(row, itemSchema as unknown as Record<string, unknown>) as string;
        const items = await cached.records(o.def.table, ids, async (missing) => {
          // Kept across stamps by their rows' versions where the database has them (record-cache.ts).
          if (byVersion) return app.rowVersionCache.read(o.def.table, missing, (of) => rowVersions(readDb, o.def, of), (of) => versionedRecordsByDataId(readDb, o.def, of), serialise);
          const rows = await recordsByDataId(readDb, o.def, missing);
          return new Map([...rows].map(([id, row]) => [id, serialise(row)]));
        });
        // The envelope serialised as the route's schema does it, its empty results filled with the records.
        const empty = reply.serialize(envelope(request, page, count, [])) as string;
        if (items !== null && empty.endsWith(RESULTS_TAIL)) {
          // Already serialised: sent as it is (a buffer body skips the response serialiser).
          return (reply as FastifyReply).type('application/json; charset=utf-8').send(jsonArrayInto(empty.slice(0, -RESULTS_TAIL.length), items, '}'));
        }
        const { count: total, results } = await listRecords(readDb, o.def, page, list);
        return envelope(request, page, total, results);
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
        const record = await answerOf(request, create(request.body));
        reply.code(201);
        return o.createResponse === 'record' ? record : { result: 'CREATED', id: record.id };
      });
    }
    if (has('get')) {
      const detailSchema = (o.detailItem ?? o.item) as unknown as Record<string, unknown>;
      app.get(byId, {
        schema: { tags, summary: `Read a ${o.def.label}`, params: IdParams, response: { 200: o.detailItem ?? o.item, ...errorResponses } },
      }, async (request, reply) => {
        const read = async () => {
          const record = await getRecord(readDb, o.def, request.params.id);
          return o.detail ? o.detail(record) : record;
        };
        if (shown) readsOnly(request, shown);
        const cached = app.recordCache.view(await stampOf(request), ownTable);
        if (!cached) return read();
        // Kept serialised as the route's schema does it (http/record-cache.ts), sent as it is.
        const body = await cached.body(`${o.path}${request.params.id}`, async () => reply.serializeInput(await read(), detailSchema) as string);
        return (reply as FastifyReply).type('application/json; charset=utf-8').send(body);
      });
    }
    for (const method of ['put', 'patch'] as const) {
      if (!has(method)) continue;
      app.route({
        method: method === 'put' ? 'PUT' : 'PATCH',
        url: byId,
        schema: {
          tags,
          summary: `Update a ${o.def.label} (${method === 'put' ? 'PUT' : 'PATCH'}: fields left out keep their value; a new id renames it)`,
          params: IdParams,
          body: o.updateBody,
          response: { 200: o.item, ...errorResponses },
        },
        handler: async (request) => answerOf(request, write(db, (ctx) => update(ctx, request.params.id, request.body))),
      });
    }
    if (has('delete')) {
      app.delete(byId, {
        schema: { tags, summary: `Delete a ${o.def.label}`, params: IdParams, response: { 200: Ok, ...errorResponses } },
      }, async (request) => {
        await answerOf(request, write(db, (ctx) => deleteRecord(ctx, o.def, request.params.id)));
        return { result: 'OK' as const };
      });
    }
  };
}
