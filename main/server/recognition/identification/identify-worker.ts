// Worker thread of the identification pool: holds a copy of the catalog's references (sent with
// each batch, tagged with a version so an unchanged catalog is not rebuilt) and identifies crops.
import { parentPort } from 'node:worker_threads';
import { decodeDescriptor } from './describe.js';
import { useEmbedderModel } from './embedding.js';
import { identifyCrops, type CropIdentity } from './identify-crops.js';
import { Identifier, type IdentifierOptions } from './identifier.js';
import type { RawPixels } from './image-input.js';

export interface PoolReference {
  id: string;
  skuId: string;
  descriptor: Uint8Array; // encodeDescriptor()
}

export type PoolRequest = {
  task: number;
  catalog: { version: number; options: IdentifierOptions; refs?: PoolReference[] };
  crops: RawPixels[];
  /** The installed embedder the main thread uses (null: the shipped one): the catalog's vectors are its. */
  embedder: string | null;
};

export type PoolReply = { task: number; results?: CropIdentity[]; error?: string };

let current: { version: number; identifier: Identifier } | undefined;

parentPort?.on('message', async (m: PoolRequest) => {
  try {
    if (useEmbedderModel(m.embedder)) current = undefined;
    if (!current || current.version !== m.catalog.version) {
      if (!m.catalog.refs) throw new Error('catalog missing');
      const identifier = new Identifier(m.catalog.options);
      for (const r of m.catalog.refs) {
        const descriptor = decodeDescriptor(r.descriptor);
        if (descriptor) identifier.add({ id: r.id, skuId: r.skuId, descriptor });
      }
      current = { version: m.catalog.version, identifier };
    }
    const results = await identifyCrops(m.crops, current.identifier);
    parentPort!.postMessage({ task: m.task, results } satisfies PoolReply);
  } catch (error) {
    parentPort!.postMessage({ task: m.task, error: error instanceof Error ? error.message : String(error) } satisfies PoolReply);
  }
});
