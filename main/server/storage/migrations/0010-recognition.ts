// Recognition's tables: uploads (content-addressed image files), SKU reference images with their
// precomputed descriptors, scenes and their reports, the persistent job queue, webhook deliveries,
// recognition-error and out-of-stock-reason messages, and instance settings (the webhook secret).
import { type Migration } from 'kysely';
import { isPostgres } from '../dialect.js';
import { keyed, ref, stamped } from './conventions.js';

export const recognition: Migration = {
  async up(db) {
    const blob = isPostgres(db) ? 'bytea' : 'blob';
    await stamped(
      keyed(db, 'uploads')
        .addColumn('sha256', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('file', 'varchar(255)', (c) => c.notNull())
        .addColumn('mime', 'varchar(64)', (c) => c.notNull())
        .addColumn('bytes', 'integer', (c) => c.notNull())
        .addColumn('width', 'integer', (c) => c.notNull())
        .addColumn('height', 'integer', (c) => c.notNull())
        .addColumn('token', 'varchar(64)', (c) => c.notNull())
        .addColumn('source_url', 'text'),
    ).execute();
    await stamped(
      keyed(db, 'sku_images')
        .addColumn('sku_id', 'varchar(255)', (c) => ref('skus', 'cascade')(c.notNull()))
        .addColumn('upload_id', 'varchar(255)', (c) => ref('uploads', 'restrict')(c.notNull()))
        .addColumn('crop', 'text')
        .addColumn('descriptor', blob),
    ).execute();
    await db.schema.createIndex('sku_images_sku').on('sku_images').column('sku_id').execute();
    await stamped(
      keyed(db, 'scenes')
        .addColumn('request_id', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('visit_id', 'varchar(255)', (c) => ref('visits', 'cascade')(c.notNull()))
        .addColumn('display_id', 'varchar(255)', ref('displays', 'set null'))
        .addColumn('images', 'text', (c) => c.notNull())
        .addColumn('options', 'text', (c) => c.notNull())
        .addColumn('webhook', 'text')
        .addColumn('analysis', 'text'),
    ).execute();
    await db.schema.createIndex('scenes_visit').on('scenes').column('visit_id').execute();
    await stamped(
      keyed(db, 'reports')
        .addColumn('scene_id', 'varchar(255)', (c) => ref('scenes', 'cascade')(c.notNull()))
        .addColumn('visit_id', 'varchar(255)', (c) => ref('visits', 'cascade')(c.notNull()))
        .addColumn('report_type', 'varchar(64)', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('json', 'text')
        .addColumn('error', 'text')
        .addColumn('previous_report', 'varchar(255)'),
    ).execute();
    await db.schema.createIndex('reports_scene').on('reports').column('scene_id').execute();
    await stamped(
      keyed(db, 'recognition_jobs')
        .addColumn('scene_id', 'varchar(255)', (c) => ref('scenes', 'cascade')(c.notNull()))
        .addColumn('reports', 'text', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('lease_owner', 'varchar(64)')
        .addColumn('lease_until', 'varchar(40)')
        .addColumn('last_error', 'text'),
    ).execute();
    await db.schema.createIndex('recognition_jobs_status').on('recognition_jobs').columns(['status', 'data_id']).execute();
    await stamped(
      keyed(db, 'webhook_deliveries')
        .addColumn('scene_id', 'varchar(255)', (c) => ref('scenes', 'cascade')(c.notNull()))
        .addColumn('report_id', 'varchar(255)', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('delivered_at', 'varchar(40)'),
    ).execute();
    await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
    for (const t of ['recognition_errors', 'oos_reasons']) {
      let b = keyed(db, t)
        .addColumn('sku_id', 'varchar(255)', (c) => ref('skus', 'cascade')(c.notNull()))
        .addColumn('scene_id', 'varchar(255)', (c) => ref('scenes', 'cascade')(c.notNull()))
        .addColumn('message', 'text')
        .addColumn('images', 'text', (c) => c.notNull());
      if (t === 'oos_reasons') b = b.addColumn('reason', 'text');
      await stamped(b).execute();
    }
    await db.schema
      .createTable('recognition_settings')
      .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
