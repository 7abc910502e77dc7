// One generic record store for every v1.5 master-data family (catalogs, SKUs, displays, planograms,
// MHLs and their records, visits): they differ only in their fields, foreign keys and a few computed
// values, which a ResourceDef declares. Queries use Kysely builders only, so they run on PostgreSQL too.
import { sql, type AliasableExpression, type Expression, type ExpressionBuilder, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { newId, now } from '../storage/ids.js';
import { insertRow, preparedQuery, type PreparedQuery } from '../storage/prepared-query.js';
import type { Database } from '../storage/schema.js';
import { insertWrite, write, type WriteContext } from '../storage/transaction.js';
import type { SyncEntityName, TableOf } from '../storage/sync-registry.js';
import { NotFoundError, RejectedError, ValidationError, messages } from './errors.js';
import { centsOf, moneyText } from './money.js';

export type TableName = keyof Omit<Database, 'outbox'>;
type Row = Record<string, unknown>;
// Generic code over many tables: Kysely's per-table typing cannot follow a table chosen at run time.
type AnyDb = Kysely<any>;
type AnySelect = SelectQueryBuilder<any, any, any>;

export interface FieldDef {
  column: string;
  /** Foreign key: the value must be the id of an existing record of this table. */
  ref?: TableName;
  /** `money`: a decimal string in the API ("1.99"), hundredths in the column (domain/money.ts). */
  kind?: 'json' | 'bool' | 'datetime' | 'money';
  /** The value the API shows and filters on, when it is not the stored column (a display's current planogram). */
  read?: (eb: ExpressionBuilder<any, any>) => AliasableExpression<unknown>;
  /** Shown, never written through this resource (a visit's `is_new`, which the Data API's `ack` clears). */
  readOnly?: true;
}

/** A record's outbox entity name and its table, paired as the sync registry pairs them. */
export type EntityTable = { [E in SyncEntityName]: { entity: E; table: TableOf<E> } }[SyncEntityName];

export type ResourceDef = EntityTable & {
  /** DRF's model name, used in messages ("brand with this id already exists."). */
  label: string;
  /** API field -> column; `id` is implicit. */
  fields: Record<string, FieldDef>;
  /** Column values a new record gets when the client leaves them out. */
  defaults?: Row;
  /** Adds created_at/updated_at to the API record. */
  timestamps?: boolean;
  /** What its list can filter, search and sort on (DRF's filterset_fields, search_fields, ordering_fields). */
  list?: ListSpec;
  /**
   * Rules across records (a price's validity overlapping another's), checked in the write's
   * transaction once the record is written: field -> messages, or null when it passes. A failure
   * undoes the write.
   */
  check?: (db: Kysely<Database>, id: string) => Promise<Record<string, string[]> | null>;
  /**
   * What else a write of these records changes, in the write's transaction: run after a create, an
   * update (with the old and the new id) and a delete, so every path that writes the record through
   * this resource (both APIs, the import) keeps it current without knowing of it (the overview's facts).
   */
  afterWrite?: (db: Kysely<Database>, ids: string[]) => Promise<unknown>;
};

/**
 * A list filter, `?name=value`: equality on an API field (a foreign key or main field), one of a
 * comma-separated list (`match: 'in'`, django-filter's `field__in`), the UTC day of a datetime field
 * (`match: 'day'`, value YYYY-MM-DD), an instant a datetime field is at or after (`match: 'from'`) or
 * before (`match: 'before'`), or a 0/1 column the record does not show.
 */
export type FilterDef = { field: string; match?: 'day' | 'in' | 'from' | 'before' } | { column: string; kind: 'bool' };

export interface ListSpec {
  /** Query parameter -> filter; `id__in` (see listFilters) comes with every list. */
  filters?: Record<string, FilterDef>;
  /** API fields `?search=` looks in: a case-insensitive substring of any of them. */
  search?: string[];
  /** API fields `?ordering=` accepts, comma-separated, `-` for descending; others are ignored, as DRF does. */
  ordering?: string[];
}

/**
 * Every list's filters: its own, and `id__in`, so a screen can name the records a page refers to (a
 * display's planogram, an SKU's brand) in one request per kind instead of downloading the whole list.
 */
export function listFilters(def: ResourceDef): Record<string, FilterDef> {
  return { id__in: { field: 'id', match: 'in' }, ...def.list?.filters };
}

/** A list request: page, filter values (by query parameter), search term and ordering. */
export interface ListQuery {
  filters?: Record<string, unknown>;
  search?: string;
  ordering?: string;
}

export interface Page {
  limit: number;
  offset: number;
}

export interface ListResult<T> {
  count: number;
  results: T[];
}

function toColumn(def: FieldDef, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  switch (def.kind) {
    case 'json':
      return JSON.stringify(value);
    case 'bool':
      return value ? 1 : 0;
    case 'datetime':
      return new Date(value as string).toISOString();
    case 'money':
      return centsOf(String(value));
    default:
      return value;
  }
}

function fromColumn(def: FieldDef, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (def.kind === 'json') return JSON.parse(value as string);
  if (def.kind === 'bool') return value === 1 || value === true;
  if (def.kind === 'money') return moneyText(Number(value));
  return value;
}

const converted = new WeakMap<ResourceDef, Array<[string, FieldDef]>>();

/**
 * Rows are selected with the API's field names (see selectRows), so presenting one only converts the
 * few typed values (JSON text, 0/1 booleans) in place: no second object per row.
 */
export function present(def: ResourceDef, row: Row): Row {
  let typed = converted.get(def);
  if (!typed) converted.set(def, (typed = Object.entries(def.fields).filter(([, f]) => f.kind === 'json' || f.kind === 'bool' || f.kind === 'money')));
  for (let i = 0; i < typed.length; i++) {
    const [field, f] = typed[i];
    row[field] = fromColumn(f, row[field]);
  }
  return row;
}

const columnLists = new WeakMap<ResourceDef, string[]>();

/** The columns the API shows, aliased to its field names, in the record's field order. */
function selectRows(db: AnyDb, def: ResourceDef) {
  let cols = columnLists.get(def);
  if (!cols) {
    const t = def.table;
    cols = [
      `${t}.id`,
      ...Object.entries(def.fields)
        .filter(([, f]) => !f.read)
        .map(([field, f]) => (f.column === field ? `${t}.${field}` : `${t}.${f.column} as ${field}`)),
      ...(def.timestamps ? [`${t}.created_at`, `${t}.updated_at`] : []),
    ];
    columnLists.set(def, cols);
  }
  const read = Object.entries(def.fields).filter(([, f]) => f.read);
  const q = db.selectFrom(def.table).select(cols);
  return read.length > 0 ? q.select((eb) => read.map(([field, f]) => f.read!(eb).as(field))) : q;
}

/** The expression a field is read (and filtered, sorted) by. */
function fieldExpr(eb: ExpressionBuilder<any, any>, def: ResourceDef, field: string): Expression<unknown> {
  if (field === 'id') return eb.ref(`${def.table}.id`);
  const f = def.fields[field];
  return f.read ? f.read(eb) : eb.ref(`${def.table}.${f.column}`);
}

/** LIKE pattern for a substring, with the wildcards in it escaped. */
function containing(term: string): string {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Whether a list request filters at all (a filter with a value, or a search term). */
function filters(def: ResourceDef, q: ListQuery): boolean {
  const known = listFilters(def);
  const filtered = Object.entries(q.filters ?? {}).some(([param, value]) => Object.hasOwn(known, param) && value !== undefined && value !== '');
  return filtered || (!!q.search?.trim() && !!def.list?.search?.length);
}

/**
 * The WHERE clause of a list: every filter given (AND), and the search term in any search field;
 * none when nothing filters, since `WHERE 1 = 1` keeps SQLite from answering count(*) from its
 * b-tree's size (a scan of every row instead, on every page).
 */
function withListWhere<Q extends { where(e: (eb: ExpressionBuilder<any, any>) => Expression<SqlBool>): Q }>(query: Q, def: ResourceDef, q: ListQuery): Q {
  return filters(def, q) ? query.where(listWhere(def, q)) : query;
}

/** The WHERE clause of a list: every filter given (AND), and the search term in any search field. */
function listWhere(def: ResourceDef, q: ListQuery) {
  return (eb: ExpressionBuilder<any, any>): Expression<SqlBool> => {
    const parts: Expression<SqlBool>[] = [];
    const filters = listFilters(def);
    for (const [param, value] of Object.entries(q.filters ?? {})) {
      // Own keys only: `?__proto__=x` names no filter (it would find Object.prototype).
      const f = Object.hasOwn(filters, param) ? filters[param] : undefined;
      if (!f || value === undefined || value === '') continue;
      if ('column' in f) parts.push(eb(eb.ref(`${def.table}.${f.column}`), '=', value ? 1 : 0));
      else if (f.match === 'day') {
        // Stored as ISO-8601 UTC text: the day's values sort between its midnight and the next.
        const start = `${value as string}T00:00:00.000Z`;
        const end = new Date(Date.parse(start) + 86_400_000).toISOString();
        parts.push(eb.and([eb(fieldExpr(eb, def, f.field), '>=', start), eb(fieldExpr(eb, def, f.field), '<', end)]));
      } else if (f.match === 'from' || f.match === 'before') {
        // A day in the viewer's time zone is a range of UTC instants; stored values are ISO UTC text.
        parts.push(eb(fieldExpr(eb, def, f.field), f.match === 'from' ? '>=' : '<', new Date(value as string).toISOString()));
      } else if (f.match === 'in') {
        const values = String(value).split(',').filter((v) => v !== '');
        parts.push(values.length > 0 ? eb(fieldExpr(eb, def, f.field), 'in', values) : eb.lit(false));
      } else parts.push(eb(fieldExpr(eb, def, f.field), '=', value));
    }
    const term = q.search?.trim();
    if (term && def.list?.search?.length) {
      const pattern = containing(term);
      parts.push(eb.or(def.list.search.map((field) => sql<SqlBool>`lower(${fieldExpr(eb, def, field)}) like ${pattern} escape '\\'`)));
    }
    return eb.and(parts);
  };
}

/** `?ordering=name,-cid` -> the allowed fields with their direction; unknown ones are ignored, as in DRF. */
export function orderingOf(def: ResourceDef, ordering: string | undefined): Array<{ field: string; desc: boolean }> {
  const allowed = new Set(def.list?.ordering ?? []);
  return (ordering ?? '')
    .split(',')
    .map((part) => part.trim())
    .map((part) => ({ field: part.replace(/^-/, ''), desc: part.startsWith('-') }))
    .filter((o) => allowed.has(o.field));
}

/** One page of records with the filters, search and ordering the resource allows; ties in creation order. */
export async function listRecords(db: Kysely<Database>, def: ResourceDef, page: Page, query: ListQuery = {}): Promise<ListResult<Row>> {
  const [{ n }] = await withListWhere((db as AnyDb).selectFrom(def.table).select((eb) => eb.fn.countAll().as('n')), def, query).execute();
  let rowsQ = withListWhere(selectRows(db as AnyDb, def), def, query);
  for (const o of orderingOf(def, query.ordering)) rowsQ = rowsQ.orderBy((eb) => fieldExpr(eb, def, o.field), o.desc ? 'desc' : 'asc');
  const rows = await rowsQ.orderBy(`${def.table}.data_id`).limit(page.limit).offset(page.offset).execute();
  return { count: Number(n), results: rows.map((r: Row) => present(def, r)) };
}

/** How many records a list has, with its filters and search. */
export async function listCount(db: Kysely<Database>, def: ResourceDef, query: ListQuery = {}): Promise<number> {
  const [{ n }] = await withListWhere((db as AnyDb).selectFrom(def.table).select((eb) => eb.fn.countAll().as('n')), def, query).execute();
  return Number(n);
}

/**
 * A page as its count and its records' data_ids in list order: what the record cache builds a page
 * from. `count`: the list's count when already known (else counted here).
 */
export async function listPageIds(db: Kysely<Database>, def: ResourceDef, page: Page, query: ListQuery = {}, count?: () => Promise<number>): Promise<{ count: number; ids: number[] }> {
  const n = await (count ?? (() => listCount(db, def, query)))();
  let idsQ = withListWhere((db as AnyDb).selectFrom(def.table).select(`${def.table}.data_id`), def, query);
  for (const o of orderingOf(def, query.ordering)) idsQ = idsQ.orderBy((eb) => fieldExpr(eb, def, o.field), o.desc ? 'desc' : 'asc');
  const rows = await idsQ.orderBy(`${def.table}.data_id`).limit(page.limit).offset(page.offset).execute();
  return { count: Number(n), ids: rows.map((r: { data_id: number }) => Number(r.data_id)) };
}

// An alias no API field has.
const DATA_ID = '__data_id';

/**
 * Every data_id of a list, in list order, when there are at most `max` (else null): a client walking
 * the list then costs a slice of this instead of an OFFSET scan per page.
 */
export async function listAllIds(db: Kysely<Database>, def: ResourceDef, query: ListQuery, max: number): Promise<number[] | null> {
  let idsQ = withListWhere((db as AnyDb).selectFrom(def.table).select(`${def.table}.data_id`), def, query);
  for (const o of orderingOf(def, query.ordering)) idsQ = idsQ.orderBy((eb) => fieldExpr(eb, def, o.field), o.desc ? 'desc' : 'asc');
  const rows = await idsQ.orderBy(`${def.table}.data_id`).limit(max + 1).execute();
  return rows.length > max ? null : rows.map((r: { data_id: number }) => Number(r.data_id));
}

/** Presented records by data_id (those that exist); at most a page's worth (MAX_PAGE_SIZE) at a time. */
export async function recordsByDataId(db: Kysely<Database>, def: ResourceDef, ids: number[]): Promise<Map<number, Row>> {
  const out = new Map<number, Row>();
  for (const row of await rowsByDataId(db, def, ids)) out.set(takeDataId(row), present(def, row));
  return out;
}

/**
 * PostgreSQL: each row's version by data_id, of those given that exist: its xmin, the transaction that
 * wrote this version of the row. Every committed change of a row gives it another (one transaction
 * commits one version of a row), so a record kept with its version is the row as it is while the
 * version is the same (http/record-cache.ts, RowVersionCache).
 */
export async function rowVersions(db: Kysely<Database>, def: ResourceDef, ids: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  if (ids.length === 0) return out;
  const rows = await (db as AnyDb)
    .selectFrom(def.table)
    .select([`${def.table}.data_id`, rowVersion(def).as('version')])
    .where(`${def.table}.data_id`, 'in', ids)
    .execute();
  for (const r of rows as Array<{ data_id: number; version: string }>) out.set(Number(r.data_id), r.version);
  return out;
}

/** recordsByDataId with each row's version (rowVersions), read in the same statement. */
export async function versionedRecordsByDataId(db: Kysely<Database>, def: ResourceDef, ids: number[]): Promise<Map<number, { row: Row; version: string }>> {
  const out = new Map<number, { row: Row; version: string }>();
  for (const row of await rowsByDataId(db, def, ids, (q) => q.select(rowVersion(def).as(VERSION)))) {
    const version = String(row[VERSION]);
    delete row[VERSION];
    out.set(takeDataId(row), { row: present(def, row), version });
  }
  return out;
}

/** The stored rows of `ids` that exist, each with its data_id (takeDataId) and what `more` selects. */
async function rowsByDataId(db: Kysely<Database>, def: ResourceDef, ids: number[], more: (q: AnySelect) => AnySelect = (q) => q): Promise<Row[]> {
  if (ids.length === 0) return [];
  const q = more(selectRows(db as AnyDb, def).select(`${def.table}.data_id as ${DATA_ID}`));
  return (await q.where(`${def.table}.data_id`, 'in', ids).execute()) as Row[];
}

/** A row's data_id as rowsByDataId selected it, taken off the row. */
function takeDataId(row: Row): number {
  const dataId = Number(row[DATA_ID]);
  delete row[DATA_ID];
  return dataId;
}

/** PostgreSQL's version of a row of `def`'s table (its xmin), as text. */
const rowVersion = (def: ResourceDef) => sql<string>`${sql.ref(`${def.table}.xmin`)}::text`;
// An alias no API field has.
const VERSION = '__row_version';

const rowById = new WeakMap<ResourceDef, PreparedQuery<[string], Row>>();

/** A record's row by id. Prepared once per resource: its `read` expressions must not depend on the call. */
export async function findRow(db: Kysely<Database>, def: ResourceDef, id: string): Promise<Row | undefined> {
  let q = rowById.get(def);
  if (!q) rowById.set(def, (q = preparedQuery<[string], Row>(1, (d, slot) => selectRows(d, def).where(`${def.table}.id`, '=', slot))));
  return (await q.execute(db, id)).rows[0];
}

export async function getRecord(db: Kysely<Database>, def: ResourceDef, id: string): Promise<Row> {
  const row = await findRow(db, def, id);
  if (!row) throw new NotFoundError(def.label);
  return present(def, row);
}

const idExists = new Map<TableName, PreparedQuery<[string], unknown>>();

async function exists(db: AnyDb, table: TableName, id: unknown): Promise<boolean> {
  if (typeof id !== 'string') return false;
  let q = idExists.get(table);
  if (!q) idExists.set(table, (q = preparedQuery<[string]>(1, (d, slot) => d.selectFrom(table).select('id').where('id', '=', slot))));
  return (await q.execute(db, id)).rows.length > 0;
}

/** Checks the new id is free and every foreign key points at an existing record. */
async function checkInput(db: AnyDb, def: ResourceDef, input: Row, currentId: string | null): Promise<void> {
  const errors: Record<string, string[]> = {};
  if (input.id !== undefined && input.id !== currentId && (await exists(db, def.table, input.id))) {
    errors.id = [messages.unique(def.label)];
  }
  for (const [field, f] of Object.entries(def.fields)) {
    const value = input[field];
    if (f.readOnly) continue;
    if (f.ref && value !== undefined && value !== null && !(await exists(db, f.ref, value))) {
      errors[field] = [messages.doesNotExist(value)];
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

function columns(def: ResourceDef, input: Row): Row {
  const out: Row = {};
  for (const [field, f] of Object.entries(def.fields)) {
    if (input[field] !== undefined && !f.readOnly) out[f.column] = toColumn(f, input[field]);
  }
  return out;
}

const returnedLists = new WeakMap<ResourceDef, string[] | null>();

/**
 * The columns an insert or update returns as the API's record (selectRows' columns, unqualified);
 * null when a field is computed (`read`): that record is read back after it is written.
 */
function returnedColumns(def: ResourceDef): string[] | null {
  let cols = returnedLists.get(def);
  if (cols === undefined) {
    const fields = Object.entries(def.fields);
    cols = fields.some(([, f]) => f.read)
      ? null
      : ['id', ...fields.map(([field, f]) => (f.column === field ? field : `${f.column} as ${field}`)), ...(def.timestamps ? ['created_at', 'updated_at'] : [])];
    returnedLists.set(def, cols);
  }
  return cols;
}

/** The resource's rules across records, on the record just written (ResourceDef.check). */
async function checkAfterWrite(ctx: WriteContext, def: ResourceDef, id: string): Promise<void> {
  const errors = def.check ? await def.check(ctx.trx, id) : null;
  if (errors) throw new ValidationError(errors);
}

function newRow(def: ResourceDef, input: Row): Row & { id: string } {
  const at = now();
  return { ...def.defaults, ...columns(def, input), id: (input.id as string | undefined) ?? newId(), created_at: at, updated_at: at };
}

export async function createRecord(ctx: WriteContext, def: ResourceDef, input: Row): Promise<Row> {
  const db = ctx.trx as AnyDb;
  await checkInput(db, def, input, null);
  const row = newRow(def, input);
  const returned = returnedColumns(def);
  const { rows } = await insertRow<Row>(db, def.table, row, returned ?? undefined);
  await checkAfterWrite(ctx, def, row.id);
  ctx.changed(def.entity, row.id);
  await def.afterWrite?.(ctx.trx, [row.id]);
  return returned ? present(def, rows[0]) : getRecord(ctx.trx, def, row.id);
}

/**
 * A new record as a write of its own (a POST). Without an id or a reference to check first and with
 * no computed field it is one INSERT, which storage/transaction.ts's insertWrite runs in one round
 * trip on PostgreSQL; otherwise createRecord in a write.
 */
export async function insertRecord(db: Kysely<Database>, def: ResourceDef, input: Row): Promise<Row> {
  const returned = returnedColumns(def);
  const checks = input.id !== undefined || def.check !== undefined || def.afterWrite !== undefined || Object.entries(def.fields).some(([field, f]) => f.ref && !f.readOnly && input[field] !== undefined && input[field] !== null);
  if (!returned || checks) return write(db, (ctx) => createRecord(ctx, def, input));
  const row = newRow(def, input);
  return present(def, await insertWrite(db, def.table, row, returned, { entity: def.entity, id: row.id }));
}

/** Partial update (PUT and PATCH alike: the interface lists every field as optional); may change the id. */
export async function updateRecord(ctx: WriteContext, def: ResourceDef, id: string, input: Row): Promise<Row> {
  const db = ctx.trx as AnyDb;
  if (!(await exists(db, def.table, id))) throw new NotFoundError(def.label);
  await checkInput(db, def, input, id);
  const newIdValue = (input.id as string | undefined) ?? id;
  const update = db
    .updateTable(def.table)
    .set({ ...columns(def, input), id: newIdValue, updated_at: now() })
    .where('id', '=', id);
  const returned = returnedColumns(def);
  const rows = returned ? await update.returning(returned).execute() : await update.execute();
  await checkAfterWrite(ctx, def, newIdValue);
  if (newIdValue !== id) ctx.changed(def.entity, id, 'delete');
  ctx.changed(def.entity, newIdValue);
  await def.afterWrite?.(ctx.trx, newIdValue === id ? [id] : [id, newIdValue]);
  return returned ? present(def, rows[0] as Row) : getRecord(ctx.trx, def, newIdValue);
}

/** SQLite's and PostgreSQL's codes for a foreign-key violation. */
function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503';
}

export async function deleteRecord(ctx: WriteContext, def: ResourceDef, id: string): Promise<void> {
  const db = ctx.trx as AnyDb;
  if (!(await exists(db, def.table, id))) throw new NotFoundError(def.label);
  try {
    await db.deleteFrom(def.table).where('id', '=', id).execute();
  } catch (error) {
    // Records that must not lose their reference (recognised scenes, reports) protect this one.
    if (isForeignKeyViolation(error)) {
      throw new RejectedError({ detail: `Cannot delete this ${def.label}: other records refer to it.` });
    }
    throw error;
  }
  ctx.changed(def.entity, id, 'delete');
  await def.afterWrite?.(ctx.trx, [id]);
}
