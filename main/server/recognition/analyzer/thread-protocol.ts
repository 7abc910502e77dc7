// The messages between the server's main thread and the analysis thread.
import type { SceneAnalysis } from '../analysis.js';
import type { CatalogMessage } from '../identification/catalog-copy.js';
import type { ProductDescriptor } from '../identification/describe.js';
import type { CropIdentity } from '../identification/identify-crops.js';
import type { RawPixels, Rect } from '../raw-pixels.js';
import type { Panorama, PanoramaHints } from '../panorama.js';
import type { SceneImage } from '../pipeline.js';
import type { AnalyzerSettings } from './scene-analyzer.js';
import type { BayHints } from '../bay/register.js';

export type ThreadData = AnalyzerSettings;

/** Each request but `close` carries the embedder the main thread uses (null: the shipped one). */
export type Work =
  | {
      type: 'analyze';
      images: SceneImage[];
      detectorPath: string | null;
      tagModelPath?: string | null;
      hints?: BayHints;
      /** The catalog's EANs to SKU ids (price tags that print one). */
      skuByEan?: Array<[string, string]>;
      readPrices?: boolean;
      catalog: CatalogMessage;
      /** One Int32 the main thread sets to 1 when the job must stop; read at each checkpoint. */
      cancel: SharedArrayBuffer;
    }
  | { type: 'describe'; path: string; crop: Rect | null }
  | { type: 'identify'; crops: RawPixels[]; catalog: CatalogMessage }
  | { type: 'panorama'; paths: string[]; hints: PanoramaHints }
  | { type: 'embedder' };

export type ThreadRequest = ({ task: number; embedder: string | null } & Work) | { type: 'close'; task: number };

/** What each request type answers with. */
export interface ThreadResults {
  analyze: SceneAnalysis;
  describe: ProductDescriptor;
  identify: CropIdentity[];
  panorama: Panorama;
  embedder: null;
  close: null;
}

/** `ready` once, when the thread has loaded its code; then one reply per request. */
export type ThreadReply = { ready: true } | { task: number; result?: ThreadResults[keyof ThreadResults]; error?: { name: string; message: string } };
