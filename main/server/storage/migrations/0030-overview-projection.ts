// The overview's facts are projected when a visit is written, not when the overview is read
// (domain/overview/projection.ts): the per-scene tables of 0026 go, and the per-visit ones take the
// shape every filter reads from an index. A visit's products are kept per display ('*' for the
// whole visit), with their brand and category, so a display, brand or category filter is a range of
// an index instead of a walk through scenes. The tables are derived and local: they are dropped and
// made again empty, and the rows of the visits already stored are projected once by the server's
// first start after this migration (overview_state 'backfill', a cursor over the visits' ids).
import type { Migration } from 'kysely';

export const overviewProjection: Migration = {
  async up(db) {
    for (const table of ['overview_scenes', 'overview_products', 'overview_photos', 'overview_visits', 'overview_visit_products', 'overview_visit_brands']) {
      await db.schema.dropTable(table).ifExists().execute();
    }
    await db.schema.dropIndex('reports_scene_updated').ifExists().execute();
    // Every stored photo of a visit with its pixel measures (null until measured), so new photo
    // thresholds judge the flagged counts again in one statement.
    await db.schema
      .createTable('overview_photos')
      .addColumn('visit_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('upload_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('width', 'integer')
      .addColumn('height', 'integer')
      .addColumn('sharpness', 'double precision')
      .addColumn('brightness', 'double precision')
      .addColumn('clipped', 'double precision')
      .addColumn('glare', 'double precision')
      .addColumn('tilt', 'double precision')
      .addColumn('convergence', 'double precision')
      .addPrimaryKeyConstraint('overview_photos_pk', ['visit_id', 'upload_id'])
      .execute();
    // A photo measured after its scene was stored: the visits showing it are found by the photo.
    await db.schema.createIndex('overview_photos_upload').on('overview_photos').column('upload_id').execute();
    await db.schema
      .createTable('overview_visits')
      .addColumn('visit_id', 'varchar(255)', (c) => c.primaryKey())
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
      // Photos the bay's registration could not join to the others (SceneAnalysis.bay).
      .addColumn('unjoined', 'integer', (c) => c.notNull())
      .addColumn('missing', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('overview_visits_started').on('overview_visits').columns(['started_date', 'visit_id']).execute();
    await db.schema.createIndex('overview_visits_shop').on('overview_visits').columns(['shop', 'started_date']).execute();
    await db.schema.createIndex('overview_visits_agent').on('overview_visits').columns(['agent', 'started_date']).execute();
    await db.schema.createIndex('overview_visits_review').on('overview_visits').columns(['review', 'started_date']).execute();
    // The displays a visit has scenes of, with their scenes' unknown facings.
    await db.schema
      .createTable('overview_visit_displays')
      .addColumn('visit_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('display_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('started_date', 'varchar(40)')
      .addColumn('unknown_facings', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('overview_visit_displays_pk', ['visit_id', 'display_id'])
      .execute();
    await db.schema.createIndex('overview_visit_displays_display').on('overview_visit_displays').columns(['display_id', 'started_date', 'visit_id', 'unknown_facings']).execute();
    // Per visit, display ('*': all its scenes) and product: facings, on the shelf (present, '*' only),
    // a must-have missing (listed missing on a scene of the display and found on none of the visit's).
    await db.schema
      .createTable('overview_visit_products')
      .addColumn('visit_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('display_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('sku_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('brand_id', 'varchar(255)')
      .addColumn('category_id', 'varchar(255)')
      .addColumn('shop', 'text')
      .addColumn('started_date', 'varchar(40)')
      .addColumn('facings', 'integer', (c) => c.notNull())
      .addColumn('present', 'integer', (c) => c.notNull())
      .addColumn('missing', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('overview_visit_products_pk', ['visit_id', 'display_id', 'sku_id'])
      .execute();
    // Whether a visit has a product of a brand or category (on a display): PostgreSQL probes it per
    // visit, from the index alone (through the primary key it read every row: 0.4 s on 10,000 visits).
    await db.schema.createIndex('overview_visit_products_kinds').on('overview_visit_products').columns(['visit_id', 'display_id', 'category_id', 'brand_id', 'started_date']).execute();
    // The missing must-haves by shop and product, any display or none, from the index alone.
    await db.schema.createIndex('overview_visit_products_missing').on('overview_visit_products').columns(['missing', 'display_id', 'started_date', 'shop', 'sku_id', 'brand_id', 'category_id', 'visit_id']).execute();
    // A brand's products (on a display, or all): the visits with one, their missing must-haves.
    await db.schema.createIndex('overview_visit_products_brand').on('overview_visit_products').columns(['display_id', 'brand_id', 'started_date', 'visit_id', 'missing']).execute();
    // When a product was last on the shelf of a shop.
    await db.schema.createIndex('overview_visit_products_seen').on('overview_visit_products').columns(['shop', 'sku_id', 'present', 'started_date']).execute();
    // The share of shelf of a category (and display): brands' facings from the index alone.
    await db.schema.createIndex('overview_visit_products_category').on('overview_visit_products').columns(['display_id', 'category_id', 'started_date', 'visit_id', 'brand_id', 'facings']).execute();
    // The categories a visit has products of, per display ('*': all its scenes): a category filter
    // reads its visits from one index range (through the products: 130,000 entries for 10,000 visits).
    await db.schema
      .createTable('overview_visit_categories')
      .addColumn('visit_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('display_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('category_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('started_date', 'varchar(40)')
      .addPrimaryKeyConstraint('overview_visit_categories_pk', ['visit_id', 'display_id', 'category_id'])
      .execute();
    await db.schema.createIndex('overview_visit_categories_category').on('overview_visit_categories').columns(['display_id', 'category_id', 'started_date', 'visit_id']).execute();
    // Per visit and brand ('' for products of none): facings, for the share of shelf without a display or category.
    await db.schema
      .createTable('overview_visit_brands')
      .addColumn('visit_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('brand_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('facings', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('overview_visit_brands_pk', ['visit_id', 'brand_id'])
      .execute();
    await db.schema.createIndex('overview_visit_brands_facings').on('overview_visit_brands').columns(['visit_id', 'brand_id', 'facings']).execute();
    await db.deleteFrom('overview_state' as never).execute();
    // '': no visit projected yet; the backfill moves it to the last visit id projected, then removes
    // it. A new database has nothing to project.
    if (await db.selectFrom('visits' as never).select('id' as never).limit(1).executeTakeFirst()) {
      await db.insertInto('overview_state' as never).values({ name: 'backfill', value: '' } as never).execute();
    }
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
