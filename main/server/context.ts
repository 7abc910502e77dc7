// What every route plugin (ours and the recognition engineer's) reaches through the Fastify instance.
import type { Kysely } from 'kysely';
import type { Database } from './storage/schema.js';
import type { AppConfig } from './config/config.js';
import type { ObjectStore } from './storage/object-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    db: Kysely<Database>;
    /**
     * For reads that write nothing (the v1.5 lists and by-id reads): on PostgreSQL a pool of its own,
     * so a screen's read does not queue behind the pushes' transactions for a connection; on SQLite `db`.
     */
    readDb: Kysely<Database>;
    dataDir: string;
    serverConfig: AppConfig;
    /** The central's bucket (SHELF_AUDIT_S3_*), or null: photos and models are files under dataDir. */
    objectStore: ObjectStore | null;
  }
}
