// Reference images learnt from a supervisor's review: a corrected box becomes a reference of its SKU
// (scenes/learn.ts). `source` tells them from the references added by hand ('upload'), so the SKU
// screen lists them as such and they can be removed; `correction_id` is the saved correction (an
// annotation_corrections row) each came from, so one correction never adds its references twice.
import type { Migration } from 'kysely';

export const reviewReferences: Migration = {
  async up(db) {
    await db.schema.alterTable('sku_images').addColumn('source', 'varchar(16)', (c) => c.notNull().defaultTo('upload')).execute();
    await db.schema.alterTable('sku_images').addColumn('correction_id', 'varchar(255)').execute();
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
