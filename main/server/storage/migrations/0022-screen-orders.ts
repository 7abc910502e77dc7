// Indexes for the orders and filters the app's screens open on, so a screen's first page reads an
// index instead of sorting or scanning a table: the visits list opens newest first
// (`?ordering=-started_date`, ties in creation order), a visit's page asks for its reports
// (`/reports/?visit=`). (Lists by name have theirs since 0013.)
import type { Migration } from 'kysely';

export const screenOrders: Migration = {
  async up(db) {
    await db.schema.createIndex('visits_started').on('visits').columns(['started_date desc', 'data_id']).execute();
    await db.schema.createIndex('reports_visit').on('reports').column('visit_id').execute();
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
