// Upload records from several devices may share their bytes (the same photo taken off one card onto
// two laptops, or a test image): each device's record keeps its own id, which its scenes name. Before
// sync an instance held one row per content hash, enforced by a UNIQUE constraint; now the central,
// and a supervisor pulling several auditors' visits, must hold both rows. The hash stays indexed:
// an instance's own uploads still dedupe by it (domain/uploads.ts looks it up first).
import { sql, type Migration } from 'kysely';
import { isPostgres } from '../dialect.js';
import { keyed, stamped } from './conventions.js';

export const syncUploads: Migration = {
  async up(db) {
    if (isPostgres(db)) {
      await sql`ALTER TABLE uploads DROP CONSTRAINT IF EXISTS uploads_sha256_key`.execute(db);
      await db.schema.createIndex('uploads_sha256').on('uploads').column('sha256').execute();
      return;
    }
    // SQLite cannot drop a column's UNIQUE: the table is rebuilt as SQLite's documentation says
    // (foreign keys off, new table, copy, drop, rename, check, all in one transaction). Kysely
    // runs SQLite migrations outside a transaction, so the pragma takes effect here.
    await sql`PRAGMA foreign_keys = OFF`.execute(db);
    try {
      await sql`BEGIN IMMEDIATE`.execute(db);
      try {
        await stamped(
          keyed(db, 'uploads_next')
            .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
            .addColumn('file', 'varchar(255)', (c) => c.notNull())
            .addColumn('mime', 'varchar(64)', (c) => c.notNull())
            .addColumn('bytes', 'integer', (c) => c.notNull())
            .addColumn('width', 'integer', (c) => c.notNull())
            .addColumn('height', 'integer', (c) => c.notNull())
            .addColumn('token', 'varchar(64)', (c) => c.notNull())
            .addColumn('source_url', 'text'),
        ).execute();
        await sql`INSERT INTO uploads_next (data_id, id, sha256, file, mime, bytes, width, height, token, source_url, created_at, updated_at)
          SELECT data_id, id, sha256, file, mime, bytes, width, height, token, source_url, created_at, updated_at FROM uploads`.execute(db);
        await sql`DROP TABLE uploads`.execute(db);
        await sql`ALTER TABLE uploads_next RENAME TO uploads`.execute(db);
        await db.schema.createIndex('uploads_sha256').on('uploads').column('sha256').execute();
        const broken = await sql`PRAGMA foreign_key_check`.execute(db);
        if (broken.rows.length > 0) throw new Error(`uploads rebuild would break ${broken.rows.length} references`);
        await sql`COMMIT`.execute(db);
      } catch (error) {
        await sql`ROLLBACK`.execute(db);
        throw error;
      }
    } finally {
      await sql`PRAGMA foreign_keys = ON`.execute(db);
    }
  },
};
