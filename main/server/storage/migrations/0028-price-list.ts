// The price list (issue 45): the price each SKU should carry, in a currency, from one day to another,
// everywhere or in one shop. Master data, made on the central and pulled by every laptop. Prices are
// kept in hundredths (an integer), never a float, so a comparison with a tag's price is exact.
import { type Migration } from 'kysely';
import { keyed, ref, stamped } from './conventions.js';

export const priceList: Migration = {
  async up(db) {
    await stamped(
      keyed(db, 'price_list')
        .addColumn('sku_id', 'varchar(255)', (c) => ref('skus', 'cascade')(c.notNull()))
        .addColumn('price_cents', 'integer', (c) => c.notNull())
        .addColumn('currency', 'varchar(3)', (c) => c.notNull())
        .addColumn('shop', 'varchar(255)')
        // Days (YYYY-MM-DD), both included; valid_to null: until further notice.
        .addColumn('valid_from', 'varchar(10)', (c) => c.notNull())
        .addColumn('valid_to', 'varchar(10)'),
    ).execute();
    // A visit's prices are looked up by SKU; the overlap check by SKU, shop and currency.
    await db.schema.createIndex('price_list_sku').on('price_list').columns(['sku_id', 'valid_from']).execute();
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
