// Sync: enrolled devices and their keys (central), who owns each pushed record (central),
// rejected changes (both sides), the laptop's sync settings and cursors, and two outbox columns:
// `device_id` (which device's push wrote the row, so a pull never echoes a device's own change back)
// and `txid` (on PostgreSQL the writing transaction's id, see sync/central/pull.ts for why the pull
// cursor follows it instead of `seq`).
import { sql, type Migration } from 'kysely';
import { isPostgres } from '../dialect.js';
import { keyed } from './conventions.js';

export const syncTables: Migration = {
  async up(db) {
    const pg = isPostgres(db);
    await db.schema
      .alterTable('outbox')
      .addColumn('txid', 'bigint', (c) => c.notNull().defaultTo(pg ? sql`(pg_current_xact_id()::text::bigint)` : 0))
      .execute();
    await db.schema.alterTable('outbox').addColumn('device_id', 'varchar(255)').execute();
    await db.schema.createIndex('outbox_txid').on('outbox').columns(['txid', 'seq']).execute();

    await keyed(db, 'devices')
      .addColumn('name', 'varchar(255)', (c) => c.notNull())
      .addColumn('role', 'varchar(32)', (c) => c.notNull())
      .addColumn('prefix', 'varchar(32)', (c) => c.notNull())
      .addColumn('hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
      .addColumn('revoked_at', 'varchar(40)')
      .addColumn('last_seen_at', 'varchar(40)')
      // The highest change number of this device applied here (its outbox seq); see sync/central/push.ts.
      .addColumn('last_change', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();

    await db.schema
      .createTable('sync_owners')
      .addColumn('entity', 'varchar(64)', (c) => c.notNull())
      .addColumn('record_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('device_id', 'varchar(255)', (c) => c.notNull())
      .addPrimaryKeyConstraint('sync_owners_pk', ['entity', 'record_id'])
      .execute();
    await db.schema.createIndex('sync_owners_device').on('sync_owners').column('device_id').execute();

    await keyed(db, 'sync_rejections')
      .addColumn('device_id', 'varchar(255)')
      .addColumn('change_number', 'bigint', (c) => c.notNull())
      .addColumn('entity', 'varchar(64)', (c) => c.notNull())
      .addColumn('record_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('sync_settings')
      .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
