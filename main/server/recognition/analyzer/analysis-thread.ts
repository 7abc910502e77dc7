// The server's analyser on a worker thread (thread-entry.ts): onnxruntime-node runs inference
// synchronously on the calling thread, and OpenCV's WebAssembly too, so on the main thread every
// detection held up every HTTP request for its whole duration. Here the main thread posts the job's
// photos, detector choice and catalog (the references only when the thread lacks that catalog), and
// keeps renewing the job's lease while the thread works; a failed renewal or a shutdown raises a
// flag the thread reads between products. Only available from the built JavaScript (a worker cannot
// load the TypeScript sources); elsewhere the server analyses in-process (scene-analyzer.ts), and so
// does a server whose thread cannot start (its script unreadable where the app is packed, say),
// rather than fail every job.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SceneAnalysis } from '../analysis.js';
import { CatalogVersions, catalogReferences, type CatalogMessage } from '../identification/catalog-copy.js';
import type { ProductDescriptor } from '../identification/describe.js';
import { activeEmbedderPath } from '../identification/embedding.js';
import type { CropIdentity } from '../identification/identify-crops.js';
import type { Identifier } from '../identification/identifier.js';
import type { RawPixels, Rect } from '../raw-pixels.js';
import type { Panorama, PanoramaHints } from '../panorama.js';
import type { SceneImage } from '../pipeline.js';
import { DetectorLoadError, SceneAnalyzer, TagModelLoadError, type AnalyzeOptions, type Analyzer, type AnalyzerSettings } from './scene-analyzer.js';
import type { ThreadData, ThreadReply, ThreadRequest, ThreadResults, Work } from './thread-protocol.js';

const ENTRY = new URL('./thread-entry.js', import.meta.url);
// How often the job's checkpoint (lease renewal, shutdown) is called while the thread works.
const CHECK_MS = 200;

type Reply = Exclude<ThreadReply, { ready: true }>;
type Pending = { resolve: (r: Reply) => void; reject: (e: Error) => void };

/** The thread ended before it had loaded its code. */
class ThreadStartError extends Error {
  override name = 'ThreadStartError';
}

export interface AnalysisThreadOptions {
  /** The thread's script (default: the built thread-entry.js beside this module). */
  entry?: URL;
  /** Told when the thread cannot start and the analysis falls back to in-process. */
  log?: (message: string, error?: unknown) => void;
}

export class AnalysisThread implements Analyzer {
  private worker: Worker | undefined;
  /** Settles when the thread has loaded its code (or ended before). */
  private started: Promise<void> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextTask = 0;
  private readonly versions = new CatalogVersions();
  /** The catalog version the thread holds (0: none). */
  private held = 0;
  /** In-process analysis, once the thread could not start. */
  private fallback: SceneAnalyzer | undefined;
  private readonly entry: URL;
  /** Closed with the server: a request still arriving is refused rather than starting a new thread. */
  private closed = false;

  constructor(
    private readonly settings: AnalyzerSettings,
    private readonly options: AnalysisThreadOptions = {},
  ) {
    this.entry = options.entry ?? ENTRY;
  }

  static available(): boolean {
    return ENTRY.pathname.endsWith('.js') && existsSync(fileURLToPath(ENTRY));
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    if (this.closed) throw new Error('recognition is shutting down');
    const worker = new Worker(this.entry, { workerData: this.settings satisfies ThreadData });
    worker.unref();
    let ready: () => void = () => undefined;
    let failed: (e: Error) => void = () => undefined;
    this.started = new Promise<void>((resolve, reject) => {
      ready = resolve;
      failed = reject;
    });
    worker.on('message', (m: ThreadReply) => {
      if ('ready' in m) return ready();
      const p = this.pending.get(m.task);
      this.pending.delete(m.task);
      p?.resolve(m);
    });
    const fail = (error: Error) => {
      failed(new ThreadStartError(`the analysis thread did not start: ${error.message}`, { cause: error }));
      if (this.worker === worker) this.worker = undefined;
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the analysis thread stopped (exit code ${code})`)));
    this.worker = worker;
    this.held = 0;
    return worker;
  }

  /** Sends one request and waits for its reply; the reply's error is raised here. */
  private async call<T extends Work['type']>(request: Extract<Work, { type: T }>): Promise<ThreadResults[T]> {
    const worker = this.thread();
    await this.started;
    const reply = await new Promise<Reply>((resolve, reject) => {
      const task = this.nextTask++;
      this.pending.set(task, { resolve, reject });
      worker.postMessage({ ...request, task, embedder: activeEmbedderPath() } as ThreadRequest);
    });
    if (reply.error) {
      // The thread may not have kept the catalog: send it whole next time.
      this.held = 0;
      const { name, message } = reply.error;
      throw name === 'DetectorLoadError' ? new DetectorLoadError(message) : name === 'TagModelLoadError' ? new TagModelLoadError(message) : new Error(message);
    }
    return reply.result as ThreadResults[T];
  }

  /** The in-process analyser once the thread could not start (logged once), else undefined. */
  private async inProcess(): Promise<SceneAnalyzer | undefined> {
    if (!this.fallback) {
      this.thread();
      try {
        await this.started;
      } catch (error) {
        this.options.log?.('recognition analyses in-process: its thread could not start', error);
        this.fallback = new SceneAnalyzer(this.settings);
      }
    }
    return this.fallback;
  }

  /** The catalog as the thread is to get it: the references only when it lacks this version. */
  private catalog(identifier: Identifier): CatalogMessage {
    const version = this.versions.of(identifier);
    const message = { version, options: identifier.options, ...(this.held === version ? {} : { refs: catalogReferences(identifier), names: [...identifier.skuNames] }) };
    this.held = version;
    return message;
  }

  async analyze(images: readonly SceneImage[], identifier: Identifier, options: AnalyzeOptions): Promise<SceneAnalysis> {
    const fallback = await this.inProcess();
    if (fallback) return fallback.analyze(images, identifier, options);
    const cancel = new SharedArrayBuffer(4);
    let stopped: { reason: unknown } | undefined;
    let checking = false;
    const watch = setInterval(() => {
      if (checking || stopped || !options.checkpoint) return;
      checking = true;
      options.checkpoint().then(
        () => (checking = false),
        (reason: unknown) => {
          stopped = { reason };
          Atomics.store(new Int32Array(cancel), 0, 1);
        },
      );
    }, CHECK_MS);
    try {
      const analysis = await this.call<'analyze'>({ type: 'analyze', images: [...images], detectorPath: options.detectorPath, tagModelPath: options.tagModelPath, hints: options.hints, skuByEan: options.skuByEan, readPrices: options.readPrices, catalog: this.catalog(identifier), cancel }).catch((error: unknown) => {
        throw stopped ? stopped.reason : error;
      });
      if (stopped) throw stopped.reason;
      return analysis;
    } finally {
      clearInterval(watch);
    }
  }

  async describe(path: string, crop: Rect | null): Promise<ProductDescriptor> {
    const fallback = await this.inProcess();
    return fallback ? fallback.describe(path, crop) : this.call<'describe'>({ type: 'describe', path, crop });
  }

  async identify(crops: readonly RawPixels[], identifier: Identifier): Promise<CropIdentity[]> {
    const fallback = await this.inProcess();
    return fallback ? fallback.identify(crops, identifier) : this.call<'identify'>({ type: 'identify', crops: [...crops], catalog: this.catalog(identifier) });
  }

  async panorama(paths: readonly string[], hints: PanoramaHints): Promise<Panorama> {
    const fallback = await this.inProcess();
    if (fallback) return fallback.panorama(paths, hints);
    const pano = await this.call<'panorama'>({ type: 'panorama', paths: [...paths], hints });
    // A Buffer arrives as a plain Uint8Array.
    return { ...pano, jpeg: Buffer.from(pano.jpeg.buffer, pano.jpeg.byteOffset, pano.jpeg.byteLength) };
  }

  async loadEmbedder(): Promise<void> {
    const fallback = await this.inProcess();
    await (fallback ? fallback.loadEmbedder() : this.call<'embedder'>({ type: 'embedder' }));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.fallback?.close();
    if (!this.worker) return;
    const worker = this.worker;
    // The thread releases its models first (native sessions), then ends.
    const task = this.nextTask++;
    await new Promise((resolve, reject) => {
      this.pending.set(task, { resolve, reject });
      worker.postMessage({ type: 'close', task } satisfies ThreadRequest);
    }).catch(() => undefined);
    await worker.terminate();
  }
}

/**
 * The server's analyser: on the analysis thread where the built thread script exists, else in-process.
 * Identification worker threads only when asked for (SHELF_AUDIT_IDENTIFY_THREADS): on the shared
 * 2-core test machine they measured no faster and add ~150 MB each.
 */
export function serverAnalyzer(settings: AnalyzerSettings, log?: AnalysisThreadOptions['log']): Analyzer {
  return AnalysisThread.available() ? new AnalysisThread(settings, { log }) : new SceneAnalyzer(settings);
}
