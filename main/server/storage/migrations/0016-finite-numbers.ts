// Before numbers were checked (http/input-values.ts), Infinity could be stored ("1e999" in JSON,
// "Infinity" in a form), and every read of such a row failed. Each numeric column holding one is
// repaired: NULL where the column allows it, else 0 (the only NOT NULL numeric columns a client sets
// are planogram positions and facings, where 0 is a valid value that a supervisor will see and fix).
import { sql, type Kysely, type Migration } from 'kysely';
import { isPostgres } from '../dialect.js';

interface NumericColumn {
  table: string;
  column: string;
  nullable: boolean;
}

async function numericColumns(db: Kysely<any>): Promise<NumericColumn[]> {
  if (isPostgres(db)) {
    // Only floating-point columns can hold an infinity on PostgreSQL.
    const rows = await sql<{ table_name: string; column_name: string; is_nullable: string }>`
      SELECT table_name, column_name, is_nullable FROM information_schema.columns
      WHERE table_schema = current_schema() AND data_type IN ('double precision', 'real')`.execute(db);
    return rows.rows.map((r) => ({ table: r.table_name, column: r.column_name, nullable: r.is_nullable === 'YES' }));
  }
  const tables = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`.execute(db);
  const out: NumericColumn[] = [];
  for (const { name } of tables.rows) {
    const columns = await sql<{ name: string; type: string; notnull: number }>`SELECT name, type, "notnull" FROM pragma_table_info(${name})`.execute(db);
    for (const c of columns.rows) {
      if (/int|real|floa|doub|num/i.test(c.type)) out.push({ table: name, column: c.name, nullable: c.notnull === 0 });
    }
  }
  return out;
}

export const finiteNumbers: Migration = {
  async up(db) {
    const infinity = isPostgres(db) ? sql`'Infinity'::float8` : sql`9e999`;
    for (const c of await numericColumns(db)) {
      const column = sql.ref(c.column);
      await sql`UPDATE ${sql.table(c.table)} SET ${column} = ${c.nullable ? sql`NULL` : sql`0`}
        WHERE ${column} = ${infinity} OR ${column} = -${infinity}${isPostgres(db) ? sql` OR ${column} = 'NaN'::float8` : sql``}`.execute(db);
    }
  },
};
