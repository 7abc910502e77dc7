// Worker thread of the identification pool: holds a copy of the catalog's references (sent with the
// first crop of each catalog version) and identifies one crop at a time from its appearance, computing
// its local features from its pixels when verification needs them.
import { parentPort } from 'node:worker_threads';
import { CatalogCopy, type CatalogMessage } from './catalog-copy.js';
import { queryLocalFeatures, type PackView } from './describe.js';
import { cropIdentity, type CropIdentity } from './identify-crops.js';
import type { RawPixels } from '../raw-pixels.js';

export type PoolRequest = {
  task: number;
  catalog: CatalogMessage;
  crop: RawPixels;
  embedding: Float32Array;
  global: Float32Array;
  colour: Float32Array;
  /** The part of its pack the crop shows, when cut by the photo's frame. */
  view?: PackView;
};

export type PoolReply = { task: number; result?: CropIdentity; error?: string };

const catalog = new CatalogCopy();

parentPort?.on('message', async (m: PoolRequest) => {
  try {
    const identifier = catalog.identifier(m.catalog);
    const r = await identifier.identify({ embedding: m.embedding, global: m.global, colour: m.colour, view: m.view, local: queryLocalFeatures(m.crop) });
    parentPort!.postMessage({ task: m.task, result: cropIdentity(r) } satisfies PoolReply);
  } catch (error) {
    parentPort!.postMessage({ task: m.task, error: error instanceof Error ? error.message : String(error) } satisfies PoolReply);
  }
});
