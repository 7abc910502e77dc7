// Identification on several cores: detection is done by the time products are identified, so the
// crops are split into contiguous runs (neighbours stay together for the repeated-facing shortcut)
// and identified by worker threads, each with its own opencv.js instance and copy of the catalog.
// Only available from the built JavaScript (a worker cannot load the TypeScript sources); callers
// fall back to identifying in-process when `IdentifyPool.available()` is false.
import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CatalogVersions, catalogReferences, type CatalogReference } from './catalog-copy.js';
import { activeEmbedderPath } from './embedding.js';
import type { CropIdentity } from './identify-crops.js';
import type { PoolReply, PoolRequest } from './identify-worker.js';
import type { Identifier } from './identifier.js';
import type { RawPixels } from './image-input.js';

const WORKER_URL = new URL('./identify-worker.js', import.meta.url);

export class IdentifyPool {
  private workers: { worker: Worker; catalog: number }[] = [];
  private nextTask = 0;
  private readonly pending = new Map<number, { resolve: (r: CropIdentity[]) => void; reject: (e: Error) => void }>();
  private readonly versions = new CatalogVersions();

  constructor(readonly size = Math.max(1, Math.min(4, os.availableParallelism?.() ?? os.cpus().length))) {}

  static available(): boolean {
    return WORKER_URL.pathname.endsWith('.js') && existsSync(fileURLToPath(WORKER_URL));
  }

  private spawn(): void {
    while (this.workers.length < this.size) {
      const worker = new Worker(WORKER_URL);
      worker.unref();
      worker.on('message', (m: PoolReply) => {
        const p = this.pending.get(m.task);
        if (!p) return;
        this.pending.delete(m.task);
        if (m.error !== undefined) p.reject(new Error(m.error));
        else p.resolve(m.results ?? []);
      });
      worker.on('error', (e) => {
        for (const p of this.pending.values()) p.reject(e);
        this.pending.clear();
        this.workers = this.workers.filter((w) => w.worker !== worker);
      });
      this.workers.push({ worker, catalog: 0 });
    }
  }

  async identify(crops: readonly RawPixels[], identifier: Identifier): Promise<CropIdentity[]> {
    if (crops.length === 0) return [];
    this.spawn();
    const version = this.versions.of(identifier);
    let refs: CatalogReference[] | undefined;
    const chunk = Math.ceil(crops.length / this.workers.length);
    const parts = this.workers.map(({ worker, catalog }, i) => {
      const slice = crops.slice(i * chunk, (i + 1) * chunk);
      if (slice.length === 0) return Promise.resolve([] as CropIdentity[]);
      const w = this.workers[i];
      if (catalog !== version) {
        refs ??= catalogReferences(identifier);
        w.catalog = version;
      }
      const task = this.nextTask++;
      const request: PoolRequest = { task, catalog: { version, options: identifier.options, refs: catalog !== version ? refs : undefined }, crops: slice, embedder: activeEmbedderPath() };
      return new Promise<CropIdentity[]>((resolve, reject) => {
        this.pending.set(task, { resolve, reject });
        worker.postMessage(request);
      });
    });
    return (await Promise.all(parts)).flat();
  }

  async close(): Promise<void> {
    const all = this.workers;
    this.workers = [];
    await Promise.all(all.map((w) => w.worker.terminate()));
  }
}
