// Identification on more cores: worker threads that identify single crops beside the thread that
// describes them (identify-crops.ts hands out the crops, so every answer is the one a single thread
// gives). A worker holds its own opencv.js and a copy of the catalog (sent when it changes), and no
// embedder: it is sent each crop's pixels with its embedding and global descriptor, and computes the
// crop's local features only when verification needs them.
// Only available from the built JavaScript (a worker cannot load the TypeScript sources); callers
// identify on their own thread when `IdentifyPool.available()` is false.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Appearance } from './appearance.js';
import { CatalogVersions, catalogReferences, type CatalogReference } from './catalog-copy.js';
import type { PackView } from './describe.js';
import type { CropIdentity, IdentifyHelpers } from './identify-crops.js';
import type { PoolReply, PoolRequest } from './identify-worker.js';
import type { Identifier } from './identifier.js';
import type { RawPixels } from '../raw-pixels.js';

const WORKER_URL = new URL('./identify-worker.js', import.meta.url);

interface PoolWorker {
  worker: Worker;
  catalog: number;
  busy: number;
}

export class IdentifyPool implements IdentifyHelpers {
  private workers: PoolWorker[] = [];
  private nextTask = 0;
  private readonly pending = new Map<number, { resolve: (r: CropIdentity) => void; reject: (e: Error) => void }>();
  private readonly versions = new CatalogVersions();
  private refs: { version: number; refs: CatalogReference[] } | undefined;

  constructor(readonly size = 1) {}

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
        else p.resolve(m.result!);
      });
      worker.on('error', (e) => {
        for (const p of this.pending.values()) p.reject(e);
        this.pending.clear();
        this.workers = this.workers.filter((w) => w.worker !== worker);
      });
      this.workers.push({ worker, catalog: 0, busy: 0 });
    }
  }

  /** Identifies one crop on the least busy worker. */
  async identify(crop: RawPixels, appearance: Appearance & { colour: Float32Array; view?: PackView }, identifier: Identifier): Promise<CropIdentity> {
    this.spawn();
    const w = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    const version = this.versions.of(identifier);
    let refs: CatalogReference[] | undefined;
    if (w.catalog !== version) {
      if (this.refs?.version !== version) this.refs = { version, refs: catalogReferences(identifier) };
      refs = this.refs.refs;
      w.catalog = version;
    }
    const task = this.nextTask++;
    const request: PoolRequest = { task, catalog: { version, options: identifier.options, refs }, crop, embedding: appearance.embedding, global: appearance.global, colour: appearance.colour, view: appearance.view };
    w.busy++;
    try {
      return await new Promise<CropIdentity>((resolve, reject) => {
        this.pending.set(task, { resolve, reject });
        w.worker.postMessage(request);
      });
    } finally {
      w.busy--;
    }
  }

  async close(): Promise<void> {
    const all = this.workers;
    this.workers = [];
    this.refs = undefined;
    await Promise.all(all.map((w) => w.worker.terminate()));
  }
}
