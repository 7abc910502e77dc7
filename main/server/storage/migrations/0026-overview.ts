// The supervisors' overview (domain/overview/): figures across thousands of visits must answer in well
// under a second, and the products behind them (facings, must-haves found or missing, photos and their
// pixel measures) sit in report JSON and scene JSON. These local tables hold those facts one row each,
// projected from the scenes and their reports when the overview is read after a change
// (domain/overview/projection.ts); they are never synced, each instance projects its own. The indexes
// serve the visit-level filters (shop, agent, each with the date).
import type { Migration } from 'kysely';

export const overview: Migration = {
  async up(db) {
    await db.schema
      .createTable('overview_scenes')
      .addColumn('scene_id', 'varchar(255)', (c) => c.primaryKey())
      .addColumn('visit_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('display_id', 'varchar(255)')
      // The scene's updated_at and its newest report's, when projected: stale when they differ.
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
      .addColumn('photos', 'integer', (c) => c.notNull())
      .addColumn('facings', 'integer', (c) => c.notNull())
      .addColumn('unknown_facings', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('overview_scenes_visit').on('overview_scenes').column('visit_id').execute();
    await db.schema
      .createTable('overview_products')
      .addColumn('scene_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('visit_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('sku_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('facings', 'integer', (c) => c.notNull())
      // 1: a must-have found, 0: a must-have missing, null: not on the scene's must-have list.
      .addColumn('must_have', 'integer')
      .addPrimaryKeyConstraint('overview_products_pk', ['scene_id', 'sku_id'])
      .execute();
    await db.schema.createIndex('overview_products_visit').on('overview_products').columns(['visit_id', 'sku_id']).execute();
    await db.schema
      .createTable('overview_photos')
      .addColumn('scene_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('upload_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('visit_id', 'varchar(255)', (c) => c.notNull())
      // photo_measures' figures (null until the photo is measured), so thresholds apply when read.
      .addColumn('width', 'integer')
      .addColumn('height', 'integer')
      .addColumn('sharpness', 'double precision')
      .addColumn('brightness', 'double precision')
      .addColumn('clipped', 'double precision')
      .addColumn('glare', 'double precision')
      .addColumn('tilt', 'double precision')
      .addColumn('convergence', 'double precision')
      .addPrimaryKeyConstraint('overview_photos_pk', ['scene_id', 'upload_id'])
      .execute();
    await db.schema.createIndex('overview_photos_visit').on('overview_photos').column('visit_id').execute();
    // Per visit, the figures the overview sums (its visit row, KPI values and scenes' facts combined),
    // so a read over 10,000 visits scans 10,000 rows instead of their 100,000 scenes.
    await db.schema
      .createTable('overview_visits')
      .addColumn('visit_id', 'varchar(255)', (c) => c.primaryKey())
      // The visit's updated_at and its newest KPI value's, when projected.
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('name', 'text')
      .addColumn('shop', 'text')
      .addColumn('shop_name', 'text')
      .addColumn('agent', 'text')
      .addColumn('started_date', 'varchar(40)')
      .addColumn('review', 'varchar(20)', (c) => c.notNull())
      .addColumn('osa', 'double precision')
      .addColumn('planogram', 'double precision')
      .addColumn('facings', 'double precision')
      .addColumn('photos', 'integer', (c) => c.notNull())
      .addColumn('unknown_facings', 'integer', (c) => c.notNull())
      .addColumn('retaken', 'integer', (c) => c.notNull())
      .addColumn('flagged', 'integer', (c) => c.notNull())
      .addColumn('missing', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('overview_visits_started').on('overview_visits').columns(['started_date', 'visit_id']).execute();
    await db.schema.createIndex('overview_visits_shop').on('overview_visits').columns(['shop', 'started_date']).execute();
    await db.schema.createIndex('overview_visits_agent').on('overview_visits').columns(['agent', 'started_date']).execute();
    // Per visit and product, across its scenes: on the shelf (facings, or a must-have found) and missing.
    await db.schema
      .createTable('overview_visit_products')
      .addColumn('visit_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('sku_id', 'varchar(255)', (c) => c.notNull())
      // The SKU's brand when projected, so a brand's missing products are read from an index.
      .addColumn('brand_id', 'varchar(255)')
      .addColumn('shop', 'text')
      .addColumn('started_date', 'varchar(40)')
      .addColumn('present', 'integer', (c) => c.notNull())
      .addColumn('missing', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('overview_visit_products_pk', ['visit_id', 'sku_id'])
      .execute();
    await db.schema.createIndex('overview_visit_products_missing').on('overview_visit_products').columns(['missing', 'started_date', 'shop', 'sku_id']).execute();
    await db.schema.createIndex('overview_visit_products_brand').on('overview_visit_products').columns(['missing', 'brand_id', 'started_date', 'visit_id']).execute();
    await db.schema.createIndex('overview_visit_products_seen').on('overview_visit_products').columns(['shop', 'sku_id', 'present', 'started_date']).execute();
    // Per visit and brand (of the SKU when projected; '' for none): facings, for the share of shelf.
    await db.schema
      .createTable('overview_visit_brands')
      .addColumn('visit_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('brand_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('facings', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('overview_visit_brands_pk', ['visit_id', 'brand_id'])
      .execute();
    // Covering: the share of shelf reads a visit's brands and facings from the index alone.
    await db.schema.createIndex('overview_visit_brands_facings').on('overview_visit_brands').columns(['visit_id', 'brand_id', 'facings']).execute();
    // The photo thresholds the stored flagged counts were judged by (JSON); others in force: judged again.
    await db.schema
      .createTable('overview_state')
      .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('visits_shop').on('visits').columns(['shop', 'started_date']).execute();
    await db.schema.createIndex('visits_agent').on('visits').columns(['agent', 'started_date']).execute();
    // Staleness: the newest report of each scene is read from the index alone.
    await db.schema.createIndex('reports_scene_updated').on('reports').columns(['scene_id', 'updated_at']).execute();
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
