// The outbox is never emptied, and a laptop asks it, on every review save and report recomputation,
// whether it ever wrote a record (scenes/queries.ts, arrivedFromElsewhere: what only arrived by sync is
// read-only here). An index by record keeps that a lookup instead of a scan of every change ever made.
import type { Migration } from 'kysely';

export const outboxRecords: Migration = {
  async up(db) {
    await db.schema.createIndex('outbox_record').on('outbox').columns(['entity', 'record_id']).execute();
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
