// The analysis thread: decodes, detects and identifies (onnxruntime and OpenCV run synchronously on
// the thread that calls them), so that the server's main thread only answers requests and writes
// results. It holds the models and a copy of the catalog between jobs.
import { parentPort, workerData } from 'node:worker_threads';
import { CatalogCopy } from '../identification/catalog-copy.js';
import { useEmbedderModel } from '../identification/embedding.js';
import { SceneAnalyzer } from './scene-analyzer.js';
import type { ThreadData, ThreadReply, ThreadRequest } from './thread-protocol.js';
import { lowerThreadPriority } from './thread-priority.js';

const settings = workerData as ThreadData;
// Before any model loads: the threads onnxruntime and the identification pool start inherit it.
lowerThreadPriority(settings.nice);
const analyzer = new SceneAnalyzer(settings);
const catalog = new CatalogCopy();
const port = parentPort!;

port.on('message', async (m: ThreadRequest) => {
  try {
    if (m.type === 'close') {
      await analyzer.close();
      port.postMessage({ task: m.task } satisfies ThreadReply);
      return;
    }
    if (useEmbedderModel(m.embedder)) catalog.clear();
    const cancel = new Int32Array(m.cancel);
    const analysis = await analyzer.analyze(m.images, catalog.identifier(m.catalog), {
      detectorPath: m.detectorPath,
      checkpoint: async () => {
        if (Atomics.load(cancel, 0) !== 0) throw new Error('analysis cancelled');
      },
    });
    port.postMessage({ task: m.task, analysis } satisfies ThreadReply);
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    port.postMessage({ task: m.task, error: { name: e.name, message: e.message } } satisfies ThreadReply);
  }
});

// Every module above has loaded: the main thread may send work (else it analyses in-process).
port.postMessage({ ready: true } satisfies ThreadReply);
