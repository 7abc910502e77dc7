// Queries that every write (or every request) runs, built and compiled once and then executed with
// new values: Kysely builds an operation tree and compiles it to SQL on every call, which was ~10%
// of a small write's CPU (docs/api.md, Fourth pass). This is Kysely's own "compile once, execute the
// compiled query" recipe, with the values filled in per call.
import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';

const SLOT = Symbol('prepared-query slot');
/** Stands for argument `i` while the query is built: it compiles to a bound parameter. */
interface Slot {
  readonly [SLOT]: number;
}
type Slots<A extends unknown[]> = { [K in keyof A]: any };

interface Compiled {
  sql: string;
  /** Per bound parameter: the argument it takes (>= 0), or -1 for a value the builder fixed. */
  from: number[];
  fixed: readonly unknown[];
}

export interface PreparedQuery<A extends unknown[], R> {
  execute(db: Kysely<any>, ...args: A): Promise<QueryResult<R>>;
}

/**
 * `build(db, ...slots)` builds the query with a slot wherever an argument goes (where a value would
 * be: a comparison's right side, an inserted value). It is built once per dialect (SQLite and
 * PostgreSQL place parameters differently, so `build` may branch on the dialect), and the slots are
 * found among the compiled parameters, so anything else the builder fixed stays as compiled.
 */
export function preparedQuery<A extends unknown[], R = unknown>(
  arity: A['length'],
  build: (db: Kysely<any>, ...slots: Slots<A>) => Compilable<R>,
): PreparedQuery<A, R> {
  // By adapter: a transaction is a new Kysely object each time, its adapter is the database's.
  const compiled = new WeakMap<object, Compiled>();
  const compile = (db: Kysely<any>): Compiled => {
    const slots = Array.from({ length: arity }, (_, i): Slot => ({ [SLOT]: i })) as Slots<A>;
    const query = build(db, ...slots).compile();
    const from = query.parameters.map((p) => (typeof p === 'object' && p !== null && SLOT in p ? (p as Slot)[SLOT] : -1));
    for (let i = 0; i < arity; i++) if (!from.includes(i)) throw new Error(`preparedQuery: argument ${i} is not a parameter of ${query.sql}`);
    nameStatement(query.sql);
    return { sql: query.sql, from, fixed: query.parameters };
  };
  return {
    async execute(db, ...args) {
      const adapter = db.getExecutor().adapter;
      let c = compiled.get(adapter);
      if (!c) compiled.set(adapter, (c = compile(db)));
      const parameters = new Array<unknown>(c.from.length);
      for (let i = 0; i < parameters.length; i++) parameters[i] = c.from[i] < 0 ? c.fixed[i] : args[c.from[i]];
      return (await db.executeQuery(CompiledQuery.raw(c.sql, parameters))) as QueryResult<R>;
    },
  };
}

/** Bound on the statements named: a PostgreSQL connection keeps every statement it was given by name. */
const NAMES_KEPT = 1000;
const statementNames = new Map<string, string>();

function nameStatement(sql: string): void {
  if (statementNames.size < NAMES_KEPT && !statementNames.has(sql)) statementNames.set(sql, `sa_prepared_${statementNames.size}`);
}

/**
 * The name a prepared query's SQL is prepared under on PostgreSQL (storage/dialect.ts): parsed and
 * planned once per connection instead of on every execution. Other SQL has none: it may not come
 * again, and a named statement's result columns may not change (DDL after it would break it).
 */
export function statementName(sql: string): string | undefined {
  return statementNames.get(sql);
}

const SHAPES_KEPT = 500;
let shapes = new Map<string, PreparedQuery<unknown[], unknown>>();

/**
 * A prepared query per shape (`key` names it: table, columns, returning list, kind), for queries whose
 * columns vary with the row written. The shapes are kept like the statement cache
 * (storage/dialect.ts): it starts over when full.
 */
export function preparedByShape<R = unknown>(key: string, arity: number, build: (db: Kysely<any>, ...slots: any[]) => Compilable<R>): PreparedQuery<unknown[], R> {
  let q = shapes.get(key) as PreparedQuery<unknown[], R> | undefined;
  if (!q) {
    if (shapes.size >= SHAPES_KEPT) shapes = new Map();
    q = preparedQuery<unknown[], R>(arity, build);
    shapes.set(key, q as PreparedQuery<unknown[], unknown>);
  }
  return q;
}

/** A row's columns that take a value: those whose value is undefined are left out, as Kysely does. */
export function rowColumns(row: Record<string, unknown>): string[] {
  return Object.keys(row).filter((c) => row[c] !== undefined);
}

/**
 * `db.insertInto(table).values(row).execute()` for one row of plain values (no expressions), prepared
 * per table, set of columns and `returning` list (`.returning(returning)`: columns, `column as alias`).
 */
export function insertRow<R = unknown>(db: Kysely<any>, table: string, row: Record<string, unknown>, returning?: readonly string[]): Promise<QueryResult<R>> {
  const columns = rowColumns(row);
  const q = preparedByShape<R>(`insert ${table}(${columns.join(',')})${returning ? returning.join(',') : ''}`, columns.length, (d, ...slots) => {
    const insert = d.insertInto(table).values(Object.fromEntries(columns.map((c, i) => [c, slots[i]])));
    return returning ? insert.returning(returning as string[]) : insert;
  });
  return q.execute(db, ...columns.map((c) => row[c]));
}
