// The laptop's record of which photo files the central holds (sync/photos.ts): one row per blob key
// once the central confirmed it, or while a resumable upload is under way, its tus URL so that an
// upload cut off (or a laptop restarted) continues where it stopped. Local only: it never syncs.
import type { Migration } from 'kysely';

export const syncPhotos: Migration = {
  async up(db) {
    await db.schema
      .createTable('sync_photos')
      .addColumn('file', 'varchar(255)', (c) => c.primaryKey())
      .addColumn('state', 'varchar(16)', (c) => c.notNull())
      .addColumn('upload_url', 'text')
      .addColumn('updated_at', 'varchar(40)', (c) => c.notNull())
      .execute();
  },
};
