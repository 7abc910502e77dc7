// The messages between the server's main thread and the analysis thread.
import type { SceneAnalysis } from '../analysis.js';
import type { CatalogMessage } from '../identification/catalog-copy.js';
import type { SceneImage } from '../pipeline.js';
import type { AnalyzerSettings } from './scene-analyzer.js';

export type ThreadData = AnalyzerSettings;

export type ThreadRequest =
  | {
      type: 'analyze';
      task: number;
      images: SceneImage[];
      detectorPath: string | null;
      /** The embedder the main thread uses (null: the shipped one): the catalog's vectors are its. */
      embedder: string | null;
      catalog: CatalogMessage;
      /** One Int32 the main thread sets to 1 when the job must stop; read at each checkpoint. */
      cancel: SharedArrayBuffer;
    }
  | { type: 'close'; task: number };

/** `ready` once, when the thread has loaded its code; then one reply per request. */
export type ThreadReply = { ready: true } | { task: number; analysis?: SceneAnalysis; error?: { name: string; message: string } };
