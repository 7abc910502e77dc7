// Photo quality: each upload's pixel measures (domain/photo-checks.ts), kept so that a visit's photos
// are judged again under new thresholds without decoding them again, and the thresholds themselves
// (name -> number). Local only: measures are recomputed from the photo where a row is missing.
import type { Migration } from 'kysely';

export const photoQuality: Migration = {
  async up(db) {
    await db.schema
      .createTable('photo_measures')
      .addColumn('upload_id', 'varchar(255)', (c) => c.primaryKey())
      .addColumn('measures', 'text', (c) => c.notNull())
      .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('photo_quality_settings')
      .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('value', 'double precision', (c) => c.notNull())
      .execute();
  },
};
