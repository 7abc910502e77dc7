// One generic record store for every v1.5 master-data family (catalogs, SKUs, displays, planograms,
// MHLs and their records, visits): they differ only in their fields, foreign keys and a few computed
// values, which a ResourceDef declares. Queries use Kysely builders only, so they run on PostgreSQL too.
import type { AliasedExpression, ExpressionBuilder, Kysely } from 'kysely';
import { newId, now } from '../storage/ids.js';
import type { Database } from '../storage/schema.js';
import type { WriteContext } from '../storage/transaction.js';
import { NotFoundError, RejectedError, ValidationError, messages } from './errors.js';

export type TableName = keyof Omit<Database, 'outbox'>;
type Row = Record<string, unknown>;
// Generic code over many tables: Kysely's per-table typing cannot follow a table chosen at run time.
type AnyDb = Kysely<any>;

export interface FieldDef {
  column: string;
  /** Foreign key: the value must be the id of an existing record of this table. */
  ref?: TableName;
  kind?: 'json' | 'bool' | 'datetime';
}

export interface ResourceDef {
  table: TableName;
  /** Outbox entity name. */
  entity: string;
  /** DRF's model name, used in messages ("brand with this id already exists."). */
  label: string;
  /** API field -> column; `id` is implicit. */
  fields: Record<string, FieldDef>;
  /** Values computed from other tables, selected with the row. */
  computed?: (eb: ExpressionBuilder<any, any>) => AliasedExpression<unknown, string>[];
  /** Column values a new record gets when the client leaves them out. */
  defaults?: Row;
  /** Adds created_at/updated_at to the API record. */
  timestamps?: boolean;
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
    default:
      return value;
  }
}

function fromColumn(def: FieldDef, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (def.kind === 'json') return JSON.parse(value as string);
  if (def.kind === 'bool') return value === 1 || value === true;
  return value;
}

const converted = new WeakMap<ResourceDef, Array<[string, FieldDef]>>();

/**
 * Rows are selected with the API's field names (see selectRows), so presenting one only converts the
 * few typed values (JSON text, 0/1 booleans) in place: no second object per row.
 */
export function present(def: ResourceDef, row: Row): Row {
  let typed = converted.get(def);
  if (!typed) converted.set(def, (typed = Object.entries(def.fields).filter(([, f]) => f.kind === 'json' || f.kind === 'bool')));
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
      ...Object.entries(def.fields).map(([field, f]) => (f.column === field ? `${t}.${field}` : `${t}.${f.column} as ${field}`)),
      ...(def.timestamps ? [`${t}.created_at`, `${t}.updated_at`] : []),
    ];
    columnLists.set(def, cols);
  }
  const q = db.selectFrom(def.table).select(cols);
  return def.computed ? q.select((eb) => def.computed!(eb)) : q;
}

/** Equality filters: API field -> value (e.g. `cid` on SKUs). */
export async function listRecords(
  db: Kysely<Database>,
  def: ResourceDef,
  page: Page,
  filters: Record<string, unknown> = {},
): Promise<ListResult<Row>> {
  const where = Object.entries(filters).filter(([, v]) => v !== undefined);
  let countQ = (db as AnyDb).selectFrom(def.table).select((eb) => eb.fn.countAll().as('n'));
  let rowsQ = selectRows(db as AnyDb, def);
  for (const [field, value] of where) {
    const column = field === 'id' ? 'id' : def.fields[field].column;
    countQ = countQ.where(column, '=', value);
    rowsQ = rowsQ.where(`${def.table}.${column}`, '=', value);
  }
  const [{ n }] = await countQ.execute();
  const rows = await rowsQ.orderBy(`${def.table}.data_id`).limit(page.limit).offset(page.offset).execute();
  return { count: Number(n), results: rows.map((r: Row) => present(def, r)) };
}

export async function findRow(db: Kysely<Database>, def: ResourceDef, id: string): Promise<Row | undefined> {
  return selectRows(db as AnyDb, def).where(`${def.table}.id`, '=', id).executeTakeFirst();
}

export async function getRecord(db: Kysely<Database>, def: ResourceDef, id: string): Promise<Row> {
  const row = await findRow(db, def, id);
  if (!row) throw new NotFoundError(def.label);
  return present(def, row);
}

async function exists(db: AnyDb, table: TableName, id: unknown): Promise<boolean> {
  if (typeof id !== 'string') return false;
  return (await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** Checks the new id is free and every foreign key points at an existing record. */
async function checkInput(db: AnyDb, def: ResourceDef, input: Row, currentId: string | null): Promise<void> {
  const errors: Record<string, string[]> = {};
  if (input.id !== undefined && input.id !== currentId && (await exists(db, def.table, input.id))) {
    errors.id = [messages.unique(def.label)];
  }
  for (const [field, f] of Object.entries(def.fields)) {
    const value = input[field];
    if (f.ref && value !== undefined && value !== null && !(await exists(db, f.ref, value))) {
      errors[field] = [messages.doesNotExist(value)];
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

function columns(def: ResourceDef, input: Row): Row {
  const out: Row = {};
  for (const [field, f] of Object.entries(def.fields)) {
    if (input[field] !== undefined) out[f.column] = toColumn(f, input[field]);
  }
  return out;
}

export async function createRecord(ctx: WriteContext, def: ResourceDef, input: Row): Promise<Row> {
  const db = ctx.trx as AnyDb;
  await checkInput(db, def, input, null);
  const id = (input.id as string | undefined) ?? newId();
  const at = now();
  await db
    .insertInto(def.table)
    .values({ ...def.defaults, ...columns(def, input), id, created_at: at, updated_at: at })
    .execute();
  ctx.changed(def.entity, id);
  return getRecord(ctx.trx, def, id);
}

/** Partial update (PUT and PATCH alike: the interface lists every field as optional); may change the id. */
export async function updateRecord(ctx: WriteContext, def: ResourceDef, id: string, input: Row): Promise<Row> {
  const db = ctx.trx as AnyDb;
  if (!(await exists(db, def.table, id))) throw new NotFoundError(def.label);
  await checkInput(db, def, input, id);
  const newIdValue = (input.id as string | undefined) ?? id;
  await db
    .updateTable(def.table)
    .set({ ...columns(def, input), id: newIdValue, updated_at: now() })
    .where('id', '=', id)
    .execute();
  if (newIdValue !== id) ctx.changed(def.entity, id, 'delete');
  ctx.changed(def.entity, newIdValue);
  return getRecord(ctx.trx, def, newIdValue);
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
}
