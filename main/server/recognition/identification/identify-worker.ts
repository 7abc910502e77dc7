// Worker thread of the identification pool: holds a copy of the catalog's references (sent with
// each batch, tagged with a version so an unchanged catalog is not rebuilt) and identifies crops.
import { parentPort } from 'node:worker_threads';
import { CatalogCopy, type CatalogMessage } from './catalog-copy.js';
import { useEmbedderModel } from './embedding.js';
import { identifyCrops, type CropIdentity } from './identify-crops.js';
import type { RawPixels } from './image-input.js';

export type PoolRequest = {
  task: number;
  catalog: CatalogMessage;
  crops: RawPixels[];
  /** The installed embedder the main thread uses (null: the shipped one): the catalog's vectors are its. */
  embedder: string | null;
};

export type PoolReply = { task: number; results?: CropIdentity[]; error?: string };

const catalog = new CatalogCopy();

parentPort?.on('message', async (m: PoolRequest) => {
  try {
    if (useEmbedderModel(m.embedder)) catalog.clear();
    const results = await identifyCrops(m.crops, catalog.identifier(m.catalog));
    parentPort!.postMessage({ task: m.task, results } satisfies PoolReply);
  } catch (error) {
    parentPort!.postMessage({ task: m.task, error: error instanceof Error ? error.message : String(error) } satisfies PoolReply);
  }
});
