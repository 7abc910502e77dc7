// PostgreSQL: a version per followed table, moved by statement triggers in the writing transaction,
// so the record cache keeps a table's records under that table's version (storage/change-stamp.ts)
// instead of the cluster's snapshot, which every commit moves: a brand POST then leaves the SKUs'
// cached records and orders current. A reader sees committed versions only, so a counter never
// repeats one. Followed: the catalog and planogram tables the v1.5 lists show, written by the office
// and imports. Not the tables that devices' pushes write concurrently (visits, scenes, the outbox):
// the version row is locked from a writing statement to its commit, which would serialise those
// writers; their lists keep the whole snapshot's stamp. SQLite: the same tables, the visits and the
// API keys, by row triggers setting a random version (as migration 0020 does: a version seen inside
// an undone write never comes back), so that one `--workers` process's write to the brands leaves
// another's cached SKUs current; SQLite writers are serialised anyway, so the row costs no
// concurrency there. Every other SQLite table is followed by TEMP triggers of the server's connection
// (storage/change-stamp.ts).
import { sql, type Migration } from 'kysely';
import { isPostgres } from '../dialect.js';

export const FOLLOWED_TABLES = ['brands', 'categories', 'manufacturers', 'skus', 'planograms', 'planogram_records', 'mhls', 'mhl_records'];
const SQLITE_FOLLOWED_TABLES = [...FOLLOWED_TABLES, 'visits', 'api_keys'];

export const tableVersions: Migration = {
  async up(db) {
    await db.schema
      .createTable('table_versions')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute();
    if (!isPostgres(db)) {
      for (const table of SQLITE_FOLLOWED_TABLES) {
        await sql`INSERT INTO table_versions (name, version) VALUES (${table}, random())`.execute(db);
        for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
          await sql
            .raw(`CREATE TRIGGER ${table}_table_version_${event.toLowerCase()} AFTER ${event} ON ${table} BEGIN UPDATE table_versions SET version = random() WHERE name = '${table}'; END`)
            .execute(db);
        }
      }
      return;
    }
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
