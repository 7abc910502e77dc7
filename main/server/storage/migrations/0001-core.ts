// The core schema: catalogs, master data, visits, Data API tasks/KPIs, API keys and the outbox.
// Foreign keys reference the global string id with ON UPDATE CASCADE, because the interface lets a
// client change a record's id through PUT/PATCH.
import { type Migration } from 'kysely';
import { isPostgres } from '../dialect.js';
import { keyed, ref, stamped } from './conventions.js';

export const core: Migration = {
  async up(db) {
    for (const t of ['brands', 'categories', 'manufacturers', 'displays']) {
      await stamped(keyed(db, t).addColumn('name', 'varchar(255)', (c) => c.notNull())).execute();
    }
    await stamped(
      keyed(db, 'skus')
        .addColumn('cid', 'varchar(255)')
        .addColumn('ean13', 'varchar(255)')
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('brand_id', 'varchar(255)', ref('brands', 'restrict'))
        .addColumn('category_id', 'varchar(255)', ref('categories', 'restrict'))
        .addColumn('manufacturer_id', 'varchar(255)', ref('manufacturers', 'restrict'))
        .addColumn('size_x_mm', 'real')
        .addColumn('size_y_mm', 'real')
        .addColumn('size_z_mm', 'real')
        .addColumn('attributes', 'text')
        .addColumn('image', 'text'),
    ).execute();
    await db.schema.createIndex('skus_cid').on('skus').column('cid').execute();
    for (const t of ['planograms', 'mhls']) {
      await stamped(
        keyed(db, t)
          .addColumn('name', 'varchar(255)', (c) => c.notNull())
          .addColumn('display_id', 'varchar(255)', ref('displays', 'set null')),
      ).execute();
      await db.schema.createIndex(`${t}_display`).on(t).column('display_id').execute();
    }
    let mhlRecords = keyed(db, 'mhl_records')
      .addColumn('name', 'varchar(255)')
      .addColumn('mhl_id', 'varchar(255)', (c) => ref('mhls', 'cascade')(c.notNull()))
      .addColumn('sku_id', 'varchar(255)', (c) => ref('skus', 'restrict')(c.notNull()));
    for (let i = 1; i <= 6; i++) mhlRecords = mhlRecords.addColumn(`sku${i}_id`, 'varchar(255)', ref('skus', 'restrict'));
    await stamped(mhlRecords).execute();
    await db.schema.createIndex('mhl_records_mhl').on('mhl_records').column('mhl_id').execute();
    await stamped(
      keyed(db, 'planogram_records')
        .addColumn('planogram_id', 'varchar(255)', (c) => ref('planograms', 'cascade')(c.notNull()))
        .addColumn('sku_id', 'varchar(255)', (c) => ref('skus', 'restrict')(c.notNull()))
        .addColumn('rack_index', 'integer', (c) => c.notNull())
        .addColumn('shelf_index', 'integer', (c) => c.notNull())
        .addColumn('product_index', 'integer', (c) => c.notNull())
        .addColumn('facing_x', 'integer', (c) => c.notNull())
        .addColumn('facing_y', 'integer', (c) => c.notNull())
        .addColumn('width', 'integer')
        .addColumn('height', 'integer'),
    ).execute();
    await db.schema.createIndex('planogram_records_planogram').on('planogram_records').column('planogram_id').execute();
    let visits = keyed(db, 'visits').addColumn('name', 'varchar(255)');
    for (const c of ['shop', 'agent', 'task', 'shop_name', 'shop_area', 'current_agent_name', 'current_agent_route', 'moderation', 'helpdesk']) {
      visits = visits.addColumn(c, 'text');
    }
    await stamped(
      visits
        .addColumn('started_date', 'varchar(40)')
        .addColumn('latitude', 'double precision')
        .addColumn('longitude', 'double precision')
        .addColumn('gps_shop', 'text')
        .addColumn('images', 'text')
        .addColumn('results', 'text')
        .addColumn('is_new', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('is_closed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('closed_at', 'varchar(40)'),
    ).execute();
    await db.schema.createIndex('visits_is_new').on('visits').column('is_new').execute();
    await stamped(
      keyed(db, 'tasks')
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('short_description', 'varchar(255)')
        .addColumn('long_description', 'text')
        .addColumn('is_enabled', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('is_required', 'integer', (c) => c.notNull().defaultTo(0)),
    ).execute();
    await stamped(
      keyed(db, 'kpis')
        .addColumn('cid', 'varchar(255)')
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('units', 'varchar(255)'),
    ).execute();
    await stamped(
      keyed(db, 'kpi_values')
        .addColumn('visit_id', 'varchar(255)', (c) => ref('visits', 'cascade')(c.notNull()))
        .addColumn('kpi_id', 'varchar(255)', (c) => ref('kpis', 'cascade')(c.notNull()))
        .addColumn('category_id', 'varchar(255)', ref('categories', 'cascade'))
        .addColumn('value', 'double precision', (c) => c.notNull()),
    ).execute();
    await db.schema.createIndex('kpi_values_visit').on('kpi_values').columns(['visit_id', 'kpi_id', 'category_id']).execute();
    await keyed(db, 'imports')
      .addColumn('finished_at', 'varchar(40)', (c) => c.notNull())
      .addColumn('source', 'text')
      .addColumn('summary', 'text', (c) => c.notNull())
      .execute();
    await keyed(db, 'api_keys')
      .addColumn('name', 'varchar(255)')
      .addColumn('prefix', 'varchar(32)', (c) => c.notNull())
      .addColumn('hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
      .addColumn('last_used_at', 'varchar(40)')
      .addColumn('revoked_at', 'varchar(40)')
      .execute();
    const outbox = db.schema.createTable('outbox');
    await (isPostgres(db)
      ? outbox.addColumn('seq', 'bigserial', (c) => c.primaryKey())
      : outbox.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement()))
      .addColumn('entity', 'varchar(64)', (c) => c.notNull())
      .addColumn('record_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('op', 'varchar(16)', (c) => c.notNull())
      .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
      .execute();
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
