// The models a scene is analysed with, held between jobs: the detector of each model file in use (a
// newly installed one is loaded when a job asks for it; the one it replaces is closed once no job
// uses it), the identification pool when one is configured, and the pipeline over them. Runs in
// whatever thread creates it: the analysis thread (analysis-thread.ts) in the server, in-process
// where no built thread script exists (the TypeScript sources under test).
import type { SceneAnalysis } from '../analysis.js';
import { createDetector, type Detector } from '../detector/index.js';
import type { Identifier } from '../identification/identifier.js';
import { IdentifyPool } from '../identification/pool.js';
import { analyzeScene, type SceneImage } from '../pipeline.js';

export interface AnalyzerSettings {
  /** onnxruntime threads of the detector. */
  detectorThreads: number;
  /** Worker threads for identification (0: on the analysing thread). */
  identifyThreads: number;
  /** Nice value of the analysis thread (Linux; 0: normal priority). Not applied in-process. */
  nice: number;
}

export interface AnalyzeOptions {
  /** The installed detector model (null: the shipped one). */
  detectorPath: string | null;
  /** Called between products: renews the job's lease, throws when the job must stop. */
  checkpoint?: () => Promise<void>;
}

/** Analyses scenes; the same contract in-process and on the analysis thread. */
export interface Analyzer {
  analyze(images: readonly SceneImage[], identifier: Identifier, options: AnalyzeOptions): Promise<SceneAnalysis>;
  close(): Promise<void>;
}

/** The detector model could not be loaded (its file is missing or broken): the caller may roll back. */
export class DetectorLoadError extends Error {
  override name = 'DetectorLoadError';
}

interface Loaded {
  detector: Promise<Detector>;
  users: number;
}

export class SceneAnalyzer implements Analyzer {
  private readonly detectors = new Map<string, Loaded>();
  private current = '';
  private readonly pool: IdentifyPool | undefined;

  constructor(private readonly settings: AnalyzerSettings) {
    this.pool = settings.identifyThreads > 0 && IdentifyPool.available() ? new IdentifyPool(settings.identifyThreads) : undefined;
  }

  async analyze(images: readonly SceneImage[], identifier: Identifier, options: AnalyzeOptions): Promise<SceneAnalysis> {
    const loaded = this.detector(options.detectorPath);
    loaded.users++;
    try {
      return await analyzeScene(images, { detector: await loaded.detector, identifier, pool: this.pool, checkpoint: options.checkpoint });
    } finally {
      loaded.users--;
      this.retire();
    }
  }

  private detector(path: string | null): Loaded {
    const key = path ?? '';
    let loaded = this.detectors.get(key);
    if (!loaded) {
      const entry: Loaded = {
        detector: createDetector({ threads: this.settings.detectorThreads, ...(path ? { modelPath: path } : {}) }).catch((error: unknown) => {
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

  /** Closes the detectors of replaced models that no running job holds any more. */
  private retire(): void {
    for (const [key, loaded] of this.detectors) {
      if (key === this.current || loaded.users > 0) continue;
      this.detectors.delete(key);
      void loaded.detector.then((d) => d.close()).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    const all = [...this.detectors.values()];
    this.detectors.clear();
    await Promise.all(all.map((l) => l.detector.then((d) => d.close()).catch(() => undefined)));
    await this.pool?.close();
  }
}
