// What every route plugin (ours and the recognition engineer's) reaches through the Fastify instance.
import type { Kysely } from 'kysely';
import type { Database } from './storage/schema.js';
import type { AppConfig } from './config/config.js';

declare module 'fastify' {
  interface FastifyInstance {
    db: Kysely<Database>;
    dataDir: string;
    serverConfig: AppConfig;
  }
}
