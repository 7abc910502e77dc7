// The overview gains the visits' price compliance (the KPI 'shelf-audit:price-compliance' that the
// PRICE_COMPLIANCE reports write, issue 45), and an index to find the facts of an SKU whose brand or
// category changes (domain/overview/projection.ts reclassifySkus): the facts carry the SKU's brand and
// category, and must follow it at once, not only for visits written afterwards.
import { sql, type Migration } from 'kysely';

export const overviewPrices: Migration = {
  async up(db) {
    await db.schema.alterTable('overview_visits').addColumn('price', 'double precision').execute();
    // Filled from the stored KPI values in one statement, as projectVisits would: no new backfill of
    // every visit (two minutes on 10,000 visits) for one column.
    await sql`update overview_visits set price = (
      select max(kv.value) from kpi_values kv join kpis k on k.id = kv.kpi_id
      where kv.visit_id = overview_visits.visit_id and kv.category_id is null and k.cid = 'shelf-audit:price-compliance')`.execute(db);
    await db.schema.createIndex('overview_visit_products_sku').on('overview_visit_products').columns(['sku_id', 'visit_id']).execute();
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
