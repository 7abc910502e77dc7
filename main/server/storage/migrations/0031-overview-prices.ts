// The overview gains the visits' price compliance (the KPI 'shelf-audit:price-compliance' that the
// PRICE_COMPLIANCE reports write, issue 45); an index to find the facts of an SKU whose brand or
// category changes (domain/overview/projection.ts reclassifySkus): the facts carry the SKU's brand and
// category, and must follow it at once, not only for visits written afterwards; and, for the time
// goal (every overview read well under 300 ms on 10,000 visits), partial indexes of the missing
// must-haves and the per-visit facings by display, category and brand (overview_visit_shares).
import { sql, type Migration } from 'kysely';
import { isPostgres } from '../dialect.js';

export const overviewPrices: Migration = {
  async up(db) {
    await db.schema.alterTable('overview_visits').addColumn('price', 'double precision').execute();
    // Filled from the stored KPI values in one statement, as projectVisits would: no new backfill of
    // every visit (two minutes on 10,000 visits) for one column.
    await sql`update overview_visits set price = (
      select max(kv.value) from kpi_values kv join kpis k on k.id = kv.kpi_id
      where kv.visit_id = overview_visits.visit_id and kv.category_id is null and k.cid = 'shelf-audit:price-compliance')`.execute(db);
    await db.schema.createIndex('overview_visit_products_sku').on('overview_visit_products').columns(['sku_id', 'visit_id']).execute();
    // The product rows' brand and category indexes served the share of shelf and the brand filter,
    // which overview_visit_shares (below) now answers; the planner preferred them, being covering,
    // over the partial ones for the missing must-haves, walking every product of the brand.
    await db.schema.dropIndex('overview_visit_products_brand').execute();
    await db.schema.dropIndex('overview_visit_products_category').execute();
    // The missing must-haves by shop and product in that order, so the list of them groups without
    // sorting (60,000 rows sorted were 55 of its 60 ms on 10,000 visits); partial, as the next two.
    await db.schema.dropIndex('overview_visit_products_missing').execute();
    await db.schema.createIndex('overview_visit_products_missing_shop').on('overview_visit_products')
      .columns(['display_id', 'shop', 'sku_id', 'started_date', 'visit_id', 'brand_id', 'category_id', 'missing']).where(sql.ref('missing'), '=', 1).execute();
    // The missing must-haves of a brand or a category (per visit for the review queue and the visits,
    // per shop and product for the missing list), from the missing rows alone: through the brand's or
    // the range's index they were a walk through every product row of the range (60-90 ms on 10,000
    // visits). Partial: one row in ten is a missing must-have.
    await db.schema.createIndex('overview_visit_products_missing_brand').on('overview_visit_products')
      .columns(['display_id', 'brand_id', 'started_date', 'visit_id', 'shop', 'sku_id', 'category_id']).where(sql.ref('missing'), '=', 1).execute();
    await db.schema.createIndex('overview_visit_products_missing_category').on('overview_visit_products')
      .columns(['display_id', 'category_id', 'started_date', 'visit_id', 'shop', 'sku_id', 'brand_id']).where(sql.ref('missing'), '=', 1).execute();
    // Per visit, display ('*': all its scenes), category ('*': any; '' none) and brand ('' none): the
    // facings of its products, one row for what were dozens of product rows. The share of shelf of a
    // display or category, and the visits with a product of a brand there, read it
    // (domain/overview/projection.ts rebuildShares keeps it).
    await db.schema
      .createTable('overview_visit_shares')
      .addColumn('visit_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('display_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('category_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('brand_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('started_date', 'varchar(40)')
      .addColumn('facings', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('overview_visit_shares_pk', ['visit_id', 'display_id', 'category_id', 'brand_id'])
      .execute();
    await db.schema.createIndex('overview_visit_shares_share').on('overview_visit_shares').columns(['display_id', 'category_id', 'started_date', 'brand_id', 'facings', 'visit_id']).execute();
    await db.schema.createIndex('overview_visit_shares_brand').on('overview_visit_shares').columns(['display_id', 'category_id', 'brand_id', 'started_date', 'visit_id']).execute();
    // Made from the stored product facts in two statements, as rebuildShares does for a few visits.
    await sql`insert into overview_visit_shares (visit_id, display_id, category_id, brand_id, started_date, facings)
      select visit_id, display_id, coalesce(category_id, ''), coalesce(brand_id, ''), max(started_date), sum(facings)
      from overview_visit_products group by visit_id, display_id, coalesce(category_id, ''), coalesce(brand_id, '')`.execute(db);
    await sql`insert into overview_visit_shares (visit_id, display_id, category_id, brand_id, started_date, facings)
      select visit_id, display_id, '*', coalesce(brand_id, ''), max(started_date), sum(facings)
      from overview_visit_products group by visit_id, display_id, coalesce(brand_id, '')`.execute(db);
    // PostgreSQL plans from statistics, which a bulk insert leaves undone until autovacuum comes by
    // (a read of the new table meanwhile took seconds).
    if (isPostgres(db)) await sql`analyze overview_visit_shares`.execute(db);
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
