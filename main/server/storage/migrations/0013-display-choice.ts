// A display's planogram and must-have list become an explicit, writable choice on the display (as the
// real service has `planogram` and `musthavelist` on a display). Null means "the newest one tied to
// the display" (domain/displays.ts decides it); deleting the chosen one falls back to that default.
import { type Migration } from 'kysely';
import { ref } from './conventions.js';

export const displayChoice: Migration = {
  async up(db) {
    await db.schema.alterTable('displays').addColumn('planogram_id', 'varchar(255)', ref('planograms', 'set null')).execute();
    await db.schema.alterTable('displays').addColumn('mhl_id', 'varchar(255)', ref('mhls', 'set null')).execute();
    await db.schema.createIndex('displays_planogram').on('displays').column('planogram_id').execute();
    await db.schema.createIndex('displays_mhl').on('displays').column('mhl_id').execute();
    // Lists sort by name on the server now (`?ordering=name`): a page of 50,000 SKUs by name reads the
    // index instead of sorting the table.
    for (const t of ['skus', 'displays', 'planograms', 'mhls', 'brands', 'categories', 'manufacturers']) {
      await db.schema.createIndex(`${t}_name`).on(t).columns(['name', 'data_id']).execute();
    }
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
