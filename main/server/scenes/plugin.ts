// Recognition inside the server: the analyser (on its own thread: every model and OpenCV call of the
// server goes through it), the job worker (and webhook sender), started when the server is ready and
// stopped at a safe point when it closes; contributes the scenes of a visit to the Data API's visit detail.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { ScenesLoader } from '../domain/data-visits.js';
import { serverSettings } from '../config/config.js';
import { serverAnalyzer } from '../recognition/analyzer/analysis-thread.js';
import type { Analyzer } from '../recognition/analyzer/scene-analyzer.js';
import { RecognitionWorker } from './jobs/worker.js';
import { visitScenes } from './visit-scenes.js';

declare module 'fastify' {
  interface FastifyInstance {
    recognitionWorker: RecognitionWorker;
    /** Runs the models and OpenCV off the main thread (reference descriptors, a reviewer's box). */
    recognitionAnalyzer: Analyzer;
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
    const analyzer = serverAnalyzer(
      { detectorThreads: settings.detectorThreads, identifyThreads: settings.identifyThreads, nice: settings.analysisNice },
      (message, error) => app.log.error({ err: error }, message),
    );
    const worker = new RecognitionWorker({
      db: app.db,
      dataDir: app.dataDir,
      baseUrl: () => baseUrlOf(app),
      concurrency: options.concurrency ?? settings.recognitionConcurrency,
      ...(settings.jobLeaseMs !== undefined ? { leaseMs: settings.jobLeaseMs } : {}),
      analyzer,
      log: (message, error) => app.log.error({ err: error }, message),
    });
    app.decorate('recognitionWorker', worker);
    app.decorate('recognitionAnalyzer', analyzer);
    app.decorate('visitScenes', ((db, visitId) => visitScenes(db, visitId, baseUrlOf(app))) satisfies ScenesLoader);
    app.addHook('onReady', async () => worker.start());
    // preClose: the worker must stop before Fastify's onClose hooks, and before the database closes.
    app.addHook('preClose', async () => {
      await worker.stop();
      await analyzer.close();
    });
  },
  { name: 'shelf-audit-recognition' },
);
