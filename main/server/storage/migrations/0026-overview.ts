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
    await db.schema.createIndex('visits_shop').on('visits').columns(['shop', 'started_date']).execute();
    await db.schema.createIndex('visits_agent').on('visits').columns(['agent', 'started_date']).execute();
    // Staleness: the newest report of each scene is read from the index alone.
    await db.schema.createIndex('reports_scene_updated').on('reports').columns(['scene_id', 'updated_at']).execute();
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
