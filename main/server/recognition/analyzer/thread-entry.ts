// The analysis thread: decodes, detects and identifies (onnxruntime and OpenCV run synchronously on
// the thread that calls them), describes added reference images, identifies a reviewer's boxes and
// stitches panoramas, so that the server's main thread only answers requests and writes results and
// never loads a model or OpenCV. It holds the models and a copy of the catalog between jobs.
import { parentPort, workerData } from 'node:worker_threads';
import { CatalogCopy } from '../identification/catalog-copy.js';
import { useEmbedderModel } from '../identification/embedding.js';
import { SceneAnalyzer } from './scene-analyzer.js';
import type { ThreadData, ThreadReply, ThreadRequest, ThreadResults } from './thread-protocol.js';
import { lowerThreadPriority } from './thread-priority.js';

const settings = workerData as ThreadData;
// Before any model loads: the threads onnxruntime and the identification pool start inherit it.
lowerThreadPriority(settings.nice);
const analyzer = new SceneAnalyzer(settings);
const catalog = new CatalogCopy();
const port = parentPort!;

async function handle(m: ThreadRequest): Promise<ThreadResults[keyof ThreadResults]> {
  if (m.type === 'close') {
    await analyzer.close();
    return null;
  }
  if (useEmbedderModel(m.embedder)) catalog.clear();
  switch (m.type) {
    case 'analyze': {
      const cancel = new Int32Array(m.cancel);
      return analyzer.analyze(m.images, catalog.identifier(m.catalog), {
        detectorPath: m.detectorPath,
        tagModelPath: m.tagModelPath,
        hints: m.hints,
        skuByEan: m.skuByEan,
        readPrices: m.readPrices,
        checkpoint: async () => {
          if (Atomics.load(cancel, 0) !== 0) throw new Error('analysis cancelled');
        },
      });
    }
    case 'describe':
      return analyzer.describe(m.path, m.crop);
    case 'identify':
      return analyzer.identify(m.crops, catalog.identifier(m.catalog));
    case 'panorama':
      return analyzer.panorama(m.paths, m.hints);
    case 'embedder':
      await analyzer.loadEmbedder();
      return null;
  }
}

// Requests are not queued behind one another: a reference image added during a job is described at
// the job's next await, not after it.
port.on('message', async (m: ThreadRequest) => {
  try {
    port.postMessage({ task: m.task, result: await handle(m) } satisfies ThreadReply);
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    port.postMessage({ task: m.task, error: { name: e.name, message: e.message } } satisfies ThreadReply);
  }
});

// Every module above has loaded: the main thread may send work (else it analyses in-process).
port.postMessage({ ready: true } satisfies ThreadReply);
