// PostgreSQL: a version per followed table, moved by statement triggers in the writing transaction,
// so the record cache keeps a table's records under that table's version (storage/change-stamp.ts)
// instead of the cluster's snapshot, which every commit moves: a brand POST then leaves the SKUs'
// cached records and orders current. A reader sees committed versions only, so a counter never
// repeats one. Followed: the catalog and planogram tables the v1.5 lists show, written by the office
// and imports. Not the tables that devices' pushes write concurrently (visits, scenes, the outbox):
// the version row is locked from a writing statement to its commit, which would serialise those
// writers; their lists keep the whole snapshot's stamp. SQLite follows every table with TEMP
// triggers of its one connection instead and leaves this table empty (it exists so both schemas match).
import { sql, type Migration } from 'kysely';
import { isPostgres } from '../dialect.js';

export const FOLLOWED_TABLES = ['brands', 'categories', 'manufacturers', 'skus', 'planograms', 'planogram_records', 'mhls', 'mhl_records'];

export const tableVersions: Migration = {
  async up(db) {
    await db.schema
      .createTable('table_versions')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute();
    if (!isPostgres(db)) return;
    await db.insertInto('table_versions' as never).values(FOLLOWED_TABLES.map((name) => ({ name, version: 0 })) as never).execute();
    await sql`CREATE FUNCTION table_versions_bump() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN UPDATE table_versions SET version = version + 1 WHERE name = TG_TABLE_NAME; RETURN NULL; END $$`.execute(db);
    for (const table of FOLLOWED_TABLES) {
      await sql
        .raw(`CREATE TRIGGER ${table}_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION table_versions_bump()`)
        .execute(db);
    }
  },
};
