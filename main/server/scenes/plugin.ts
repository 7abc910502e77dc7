// The scene's lifecycle inside the server: the analyser (on its own thread: every model and OpenCV call
// of the server goes through it), the job worker (and webhook sender), started when the server is ready
// and stopped at a safe point when it closes; contributes the scenes of a visit to the Data API's visit
// detail. Its settings come from the server's configuration (app.serverConfig).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { ScenesLoader } from '../domain/data-visits.js';
import type { Reach } from '../http/outgoing.js';
import { setShippedEmbedder } from '../recognition/identification/embedding.js';
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
  /** Jobs run at once (default: the recognitionConcurrency setting). */
  concurrency?: number;
}

/**
 * Where webhooks may go: anywhere when the instance allows private URLs; else public addresses, and
 * on a laptop loopback too, so that a local integration on the same laptop receives them out of the
 * box. The central serves many clients, so loopback there is the central's own machine: refused.
 */
export function webhookReach(role: 'laptop' | 'central', allowPrivateUrls: boolean): Reach {
  if (allowPrivateUrls) return 'any';
  return role === 'central' ? 'public' : 'loopback';
}

function baseUrlOf(app: FastifyInstance): string {
  const address = app.server.address();
  if (!address || typeof address === 'string') return '';
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

export default fp(
  async (app: FastifyInstance, options: RecognitionPluginOptions) => {
    const { settings, role } = app.serverConfig;
    // This thread's embedder names the model in /info (the analysis thread is told the same below).
    setShippedEmbedder(settings.embedderModel);
    const analyzer = serverAnalyzer(
      {
        detectorThreads: settings.detectorThreads,
        identifyThreads: settings.identifyThreads,
        embedThreads: settings.embedThreads,
        detectorModel: settings.detectorModel,
        embedderModel: settings.embedderModel,
        nice: settings.analysisNice,
        readPrices: settings.readPrices,
      },
      (message, error) => app.log.error({ err: error }, message),
    );
    const worker = new RecognitionWorker({
      db: app.db,
      dataDir: app.dataDir,
      bucket: app.objectStore,
      baseUrl: () => baseUrlOf(app),
      concurrency: options.concurrency ?? settings.recognitionConcurrency,
      ...(settings.jobLeaseMs !== undefined ? { leaseMs: settings.jobLeaseMs } : {}),
      webhookBackoffMs: settings.webhookBackoffMs,
      webhookReach: webhookReach(role, settings.allowPrivateUrls),
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
