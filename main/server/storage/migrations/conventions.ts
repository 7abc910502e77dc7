// The schema's conventions, shared by every migration: each table has a per-instance integer
// `data_id` (the Data API's id) and a global string `id` (v1.5, never colliding across laptops);
// timestamps are ISO strings; references point at the string id and follow its renames
// (ON UPDATE CASCADE), because the interface lets a client change an id through PUT/PATCH.
import { type CreateTableBuilder, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';

export function keyed(db: Kysely<any>, table: string): CreateTableBuilder<string, 'data_id' | 'id'> {
  const builder = db.schema.createTable(table);
  const withKey = isPostgres(db)
    ? builder.addColumn('data_id', 'serial', (c) => c.primaryKey())
    : builder.addColumn('data_id', 'integer', (c) => c.primaryKey().autoIncrement());
  return withKey.addColumn('id', 'varchar(255)', (c) => c.notNull().unique());
}

export function stamped<T extends string>(b: CreateTableBuilder<string, T>) {
  return b.addColumn('created_at', 'varchar(40)', (c) => c.notNull()).addColumn('updated_at', 'varchar(40)', (c) => c.notNull());
}

export const ref = (table: string, onDelete: 'cascade' | 'set null' | 'restrict') => (c: any) =>
  c.references(`${table}.id`).onUpdate('cascade').onDelete(onDelete);
