// The models a scene is analysed with, held between jobs: the detector of each model file in use (a
// newly installed one is loaded when a job asks for it; the one it replaces is closed once no job
// uses it), the identification pool when one is configured, and the pipeline over them; and the rest
// of the server's model and OpenCV work (reference descriptors, a reviewer's box, panoramas). Runs in
// whatever thread creates it: the analysis thread (analysis-thread.ts) in the server, in-process
// where no built thread script exists (the TypeScript sources under test).
import type { SceneAnalysis } from '../analysis.js';
import { createDetector, defaultModelPath, type Detector } from '../detector/index.js';
import { describeReference, type ProductDescriptor } from '../identification/describe.js';
import { loadEmbedder, setEmbedderThreads, setShippedEmbedder } from '../identification/embedding.js';
import { identifyCrops, type CropIdentity } from '../identification/identify-crops.js';
import type { Identifier } from '../identification/identifier.js';
import type { RawPixels, Rect } from '../raw-pixels.js';
import { IdentifyPool } from '../identification/pool.js';
import { stitchPanorama, type Panorama, type PanoramaHints } from '../panorama.js';
import { analyzeScene, type SceneImage } from '../pipeline.js';
import type { PriceParts } from '../prices/find-prices.js';
import { createPriceTagDetector, type PriceTagDetector } from '../prices/tag-detector.js';
import type { BayHints } from '../bay/register.js';

export interface AnalyzerSettings {
  /** onnxruntime threads of the detector. */
  detectorThreads: number;
  /** Worker threads for identification (0: on the analysing thread). */
  identifyThreads: number;
  /** onnxruntime threads of the product embedder (default 2). */
  embedThreads?: number;
  /** Model files used in place of the shipped ones (settings; an installed model still comes first). */
  detectorModel?: string | null;
  embedderModel?: string | null;
  /** Nice value of the analysis thread (Linux; 0: normal priority). Not applied in-process. */
  nice: number;
  /** Find, read and link price tags on every photo (default true; off where prices are not wanted). */
  readPrices?: boolean;
}

export interface AnalyzeOptions {
  /** The installed detector model (null: the shipped one). */
  detectorPath: string | null;
  /** The installed price-tag model (null or absent: the shipped one). */
  tagModelPath?: string | null;
  /** Called between products: renews the job's lease, throws when the job must stop. */
  checkpoint?: () => Promise<void>;
  /** How the photos were taken (panorama_stack_width): whom a photo not joined to the bay is reported against. */
  hints?: BayHints;
  /** The catalog's EANs and their SKU ids: a price tag printing one is linked to that SKU. */
  skuByEan?: Array<[string, string]>;
  /** false: the scene asks for no price report, so its tags are not looked for (the stage costs seconds). */
  readPrices?: boolean;
}

/**
 * Everything the server computes with a model or OpenCV; the same contract in-process and on the
 * analysis thread. The embedder is the one `useEmbedderModel` chose in the calling thread.
 */
export interface Analyzer {
  analyze(images: readonly SceneImage[], identifier: Identifier, options: AnalyzeOptions): Promise<SceneAnalysis>;
  /** The descriptor of a reference image (its `crop` only, when given). */
  describe(path: string, crop: Rect | null): Promise<ProductDescriptor>;
  /** Identifies product crops against the catalog (a reviewer's box). */
  identify(crops: readonly RawPixels[], identifier: Identifier): Promise<CropIdentity[]>;
  panorama(paths: readonly string[], hints: PanoramaHints): Promise<Panorama>;
  /** Loads the chosen embedder now: a file that does not load fails here, between jobs. */
  loadEmbedder(): Promise<void>;
  close(): Promise<void>;
}

/** The detector model could not be loaded (its file is missing or broken): the caller may roll back. */
export class DetectorLoadError extends Error {
  override name = 'DetectorLoadError';
}

/** The price-tag model could not be loaded: the caller may roll back an installed one, as for the detector. */
export class TagModelLoadError extends Error {
  override name = 'TagModelLoadError';
}

interface Loaded<T = Detector> {
  detector: Promise<T>;
  users: number;
}

export class SceneAnalyzer implements Analyzer {
  private readonly detectors = new Map<string, Loaded>();
  private current = '';
  /** The tag models, held and retired like the detectors. */
  private readonly tagModels = new Map<string, Loaded<PriceTagDetector>>();
  private currentTags = '';
  private readonly pool: IdentifyPool | undefined;

  constructor(private readonly settings: AnalyzerSettings) {
    if (settings.embedThreads !== undefined) setEmbedderThreads(settings.embedThreads);
    if (settings.embedderModel !== undefined) setShippedEmbedder(settings.embedderModel);
    this.pool = settings.identifyThreads > 0 && IdentifyPool.available() ? new IdentifyPool(settings.identifyThreads) : undefined;
  }

  async analyze(images: readonly SceneImage[], identifier: Identifier, options: AnalyzeOptions): Promise<SceneAnalysis> {
    const loaded = this.detector(options.detectorPath);
    const wantPrices = this.settings.readPrices !== false && options.readPrices !== false;
    const tags = wantPrices ? this.tagModel(options.tagModelPath ?? null) : undefined;
    loaded.users++;
    if (tags) tags.users++;
    try {
      // Prices are read on this thread, where the photo's pixels already are, after its products. The tag
      // model is loaded before the analysis starts, so a file that does not load fails the job at once.
      const tagDetector = tags ? await tags.detector : undefined;
      const prices: PriceParts | undefined = tagDetector ? { detect: (raw) => tagDetector.detect(raw), skuByEan: options.skuByEan ? new Map(options.skuByEan) : undefined } : undefined;
      return await analyzeScene(images, { detector: await loaded.detector, identifier, pool: this.pool, checkpoint: options.checkpoint, prices }, options.hints);
    } finally {
      loaded.users--;
      if (tags) tags.users--;
      this.retire();
    }
  }

  describe(path: string, crop: Rect | null): Promise<ProductDescriptor> {
    return describeReference(path, crop);
  }

  identify(crops: readonly RawPixels[], identifier: Identifier): Promise<CropIdentity[]> {
    return identifyCrops(crops, identifier);
  }

  panorama(paths: readonly string[], hints: PanoramaHints): Promise<Panorama> {
    return stitchPanorama(paths, hints);
  }

  loadEmbedder(): Promise<void> {
    return loadEmbedder();
  }

  private detector(path: string | null): Loaded {
    const key = path ?? '';
    let loaded = this.detectors.get(key);
    if (!loaded) {
      const entry: Loaded = {
        detector: createDetector({ threads: this.settings.detectorThreads, modelPath: path ?? defaultModelPath(this.settings.detectorModel) }).catch((error: unknown) => {
          // Not kept: the next job loads it again (a missing file may be back by then).
          if (this.detectors.get(key) === entry) this.detectors.delete(key);
          throw new DetectorLoadError(error instanceof Error ? error.message : String(error), { cause: error });
        }),
        users: 0,
      };
      loaded = entry;
      this.detectors.set(key, loaded);
    }
    if (this.current !== key) {
      this.current = key;
      this.retire();
    }
    return loaded;
  }

  private tagModel(path: string | null): Loaded<PriceTagDetector> {
    const key = path ?? '';
    let loaded = this.tagModels.get(key);
    if (!loaded) {
      const entry: Loaded<PriceTagDetector> = {
        detector: createPriceTagDetector({ modelPath: path ?? undefined }).catch((error: unknown) => {
          if (this.tagModels.get(key) === entry) this.tagModels.delete(key);
          throw new TagModelLoadError(error instanceof Error ? error.message : String(error), { cause: error });
        }),
        users: 0,
      };
      loaded = entry;
      this.tagModels.set(key, loaded);
    }
    this.currentTags = key;
    return loaded;
  }

  /** Closes the detectors (and tag models) of replaced models that no running job holds any more. */
  private retire(): void {
    for (const [map, current] of [[this.detectors, this.current], [this.tagModels, this.currentTags]] as const) {
      for (const [key, loaded] of map as Map<string, Loaded<Detector | PriceTagDetector>>) {
        if (key === current || loaded.users > 0) continue;
        map.delete(key);
        void loaded.detector.then((d) => d.close()).catch(() => undefined);
      }
    }
  }

  async close(): Promise<void> {
    const all: Loaded<Detector | PriceTagDetector>[] = [...this.detectors.values(), ...this.tagModels.values()];
    this.detectors.clear();
    this.tagModels.clear();
    await Promise.all(all.map((l) => l.detector.then((d) => d.close()).catch(() => undefined)));
    await this.pool?.close();
  }
}
