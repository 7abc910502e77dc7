// Recognition inside the server: starts the job worker (and webhook sender) when the server is ready
// and stops it at a safe point when the server closes; contributes the scenes of a visit to the Data
// API's visit detail.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { ScenesLoader } from '../domain/data-visits.js';
import { serverSettings } from '../config.js';
import { RecognitionWorker } from './jobs/worker.js';
import { visitScenes } from './visit-scenes.js';

declare module 'fastify' {
  interface FastifyInstance {
    recognitionWorker: RecognitionWorker;
    /** The recognised scenes of a visit, for the Data API's visit detail. */
    visitScenes: ScenesLoader;
  }
}

export interface RecognitionPluginOptions {
  /** Jobs run at once (default 1, or SHELF_AUDIT_RECOGNITION_CONCURRENCY). */
  concurrency?: number;
}

function baseUrlOf(app: FastifyInstance): string {
  const address = app.server.address();
  if (!address || typeof address === 'string') return '';
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

export default fp(
  async (app: FastifyInstance, options: RecognitionPluginOptions) => {
    const settings = serverSettings();
    const worker = new RecognitionWorker({
      db: app.db,
      dataDir: app.dataDir,
      baseUrl: () => baseUrlOf(app),
      concurrency: options.concurrency ?? settings.recognitionConcurrency,
      ...(settings.jobLeaseMs !== undefined ? { leaseMs: settings.jobLeaseMs } : {}),
      log: (message, error) => app.log.error({ err: error }, message),
    });
    app.decorate('recognitionWorker', worker);
    app.decorate('visitScenes', ((db, visitId) => visitScenes(db, visitId, baseUrlOf(app))) satisfies ScenesLoader);
    app.addHook('onReady', async () => worker.start());
    // preClose: the worker must stop before Fastify's onClose hooks, and before the database closes.
    app.addHook('preClose', async () => worker.stop());
  },
  { name: 'shelf-audit-recognition' },
);
