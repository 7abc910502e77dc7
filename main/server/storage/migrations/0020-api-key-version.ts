// A version of the API-key table that moves with every change to a key (created, revoked, deleted):
// the key cache of http/auth.ts is kept under it (storage/change-stamp.ts, keyStamp), so that a key
// checked once is not checked again on every request, as it was while the cache followed the whole
// database's stamp, which every record write moves. Kept by triggers, so every writer moves it: this
// process, another `--workers` process, the CLI.
import { sql, type Migration } from 'kysely';
import { isPostgres } from '../dialect.js';

export const apiKeyVersion: Migration = {
  async up(db) {
    await db.schema
      .createTable('api_key_version')
      .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute();
    await db.insertInto('api_key_version' as never).values({ id: 1, version: 0 } as never).execute();
    if (isPostgres(db)) {
      // A reader sees committed versions only: a counter never repeats one.
      await sql`CREATE FUNCTION api_key_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN UPDATE api_key_version SET version = version + 1; RETURN NULL; END $$`.execute(db);
      await sql`CREATE TRIGGER api_keys_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON api_keys
        FOR EACH STATEMENT EXECUTE FUNCTION api_key_version_bump()`.execute(db);
      return;
    }
    // SQLite: the stamp is read on the connection that writes, so it can see a version a rolled-back
    // write set; a counter would then give that version again to a different set of keys. A random
    // one does not repeat.
    for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
      await sql
        .raw(`CREATE TRIGGER api_keys_version_${event.toLowerCase()} AFTER ${event} ON api_keys BEGIN UPDATE api_key_version SET version = random(); END`)
        .execute(db);
    }
  },
};
