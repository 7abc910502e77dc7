// Runs the queue: up to `concurrency` jobs at once (1 by default: detection and identification are
// CPU-bound, and a second job would only slow the first), plus the webhook sender. Stopping lets a
// running job reach its next checkpoint (between products, between reports), hands it back to the
// queue unfinished, and waits for that, so shutdown never leaves a half-written report.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import type { PhotoBucket } from '../../domain/upload-cache.js';
import { BUCKET_RETRY_AFTER_S, BucketUnavailableError } from '../../storage/object-store.js';
import { write } from '../../storage/transaction.js';
import { DetectorLoadError, TagModelLoadError, type Analyzer } from '../../recognition/analyzer/scene-analyzer.js';
import type { Identifier } from '../../recognition/identification/identifier.js';
import { useEmbedderModel } from '../../recognition/identification/embedding.js';
import { currentModelPath, rollbackModel } from '../../recognition/model-store.js';
import type { SceneImage } from '../../recognition/pipeline.js';
import type { BayHints } from '../../recognition/bay/register.js';
import { deliverDue } from '../webhooks/deliveries.js';
import type { Reach } from '../../http/outgoing.js';
import { failJob, processSceneJob } from './process-scene.js';
import { claimJob, MAX_ATTEMPTS, newLeaseOwner, reclaimOrphanedJobs, releaseJob, renewLease, returnJob, type ClaimedJob } from './queue.js';
import { skuByEan } from '../queries.js';

export interface WorkerOptions {
  db: Kysely<Database>;
  dataDir: string;
  /** The central's bucket, for photos another process received (domain/upload-cache.ts). */
  bucket?: PhotoBucket;
  baseUrl: () => string;
  concurrency?: number;
  /** How long a claimed job stays ours without a renewal. */
  leaseMs?: number;
  pollMs?: number;
  /** First webhook retry delay; doubles per attempt (default 5 s). */
  webhookBackoffMs?: number;
  /** Which addresses webhook URLs may reach (default: public ones only). */
  webhookReach?: Reach;
  /** Runs the models (analyzer/): on the analysis thread in the server. Not closed by the worker. */
  analyzer: Analyzer;
  /** Logs failures (the server's logger). */
  log?: (message: string, error?: unknown) => void;
}

class Stopping extends Error {
  override name = 'Stopping';
}

export class RecognitionWorker {
  private readonly owner = newLeaseOwner();
  private readonly o: Required<Omit<WorkerOptions, 'log'>> & Pick<WorkerOptions, 'log'>;
  private readonly analyzer: Analyzer;
  private stopping = false;
  private loops: Promise<void>[] = [];
  /** Jobs running now: the embedder is switched only when none is. */
  private running = 0;
  private wake: (() => void) | undefined;

  constructor(options: WorkerOptions) {
    this.o = {
      concurrency: 1,
      leaseMs: 15_000,
      pollMs: 250,
      webhookBackoffMs: 5_000,
      webhookReach: 'public',
      bucket: null,
      ...options,
    };
    this.analyzer = options.analyzer;
  }

  start(): void {
    if (this.loops.length > 0) return;
    // A predecessor killed mid-job (same host, process gone) gives its jobs back before the first claim.
    const reclaimed = reclaimOrphanedJobs(this.o.db).catch((e) => this.o.log?.('reclaiming orphaned recognition jobs failed', e));
    for (let i = 0; i < Math.max(1, this.o.concurrency); i++) this.loops.push(reclaimed.then(() => this.jobLoop()));
    this.loops.push(this.webhookLoop());
  }

  /** Lets the worker look for work now instead of at its next poll. */
  notify(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await Promise.all(this.loops);
    this.loops = [];
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      const prev = this.wake;
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = () => {
        prev?.();
        done();
      };
    });
  }

  /**
   * Analyses a job's photos with the detector and the price-tag model installed when the job started
   * (model-store.ts), else the shipped ones. One that does not load is rolled back (and refused from then
   * on) and the previous model serves the job.
   */
  private async analyze(images: readonly SceneImage[], identifier: Identifier, models: { detectorPath: string | null; tagModelPath: string | null }, checkpoint: () => Promise<void>, hints: BayHints | undefined, readPrices: boolean) {
    let { detectorPath, tagModelPath } = models;
    for (;;) {
      try {
        const eans = readPrices ? await skuByEan(this.o.db) : undefined;
        return await this.analyzer.analyze(images, identifier, { detectorPath, tagModelPath, checkpoint, hints, skuByEan: eans, readPrices });
      } catch (error) {
        if (error instanceof DetectorLoadError && detectorPath) {
          this.o.log?.(`the installed detector ${detectorPath} failed to load; rolling back to the previous model`, error);
          await rollbackModel(this.o.dataDir, { refuse: true });
          detectorPath = currentModelPath(this.o.dataDir);
        } else if (error instanceof TagModelLoadError && tagModelPath) {
          this.o.log?.(`the installed price-tag model ${tagModelPath} failed to load; rolling back to the previous model`, error);
          await rollbackModel(this.o.dataDir, { kind: 'tags', refuse: true });
          tagModelPath = currentModelPath(this.o.dataDir, 'tags');
        } else {
          throw error;
        }
      }
    }
  }

  /**
   * Takes up a newly installed embedder, or goes back to the previous one, between jobs only: every
   * embedding of a job (and of the catalog it is compared with) must come from one model. One that
   * does not load is rolled back and refused.
   */
  private async chooseEmbedder(): Promise<void> {
    if (this.running > 0) return; // another job is running: switch when none is
    for (let attempt = 0; attempt < 3; attempt++) {
      const wanted = currentModelPath(this.o.dataDir, 'embedder');
      if (!useEmbedderModel(wanted)) return;
      try {
        await this.analyzer.loadEmbedder();
        return;
      } catch (error) {
        if (!wanted) throw error;
        this.o.log?.(`the installed embedder ${wanted} failed to load; rolling back to the previous model`, error);
        await rollbackModel(this.o.dataDir, { kind: 'embedder', refuse: true });
      }
    }
  }

  private async jobLoop(): Promise<void> {
    while (!this.stopping) {
      let job: ClaimedJob | null = null;
      try {
        job = await claimJob(this.o.db, this.owner, this.o.leaseMs);
      } catch (e) {
        this.o.log?.('claiming a recognition job failed', e);
      }
      if (!job) {
        await this.sleep(this.o.pollMs);
        continue;
      }
      await this.run(job);
    }
  }

  private async run(job: ClaimedJob): Promise<void> {
    let lastRenewal = Date.now();
    const checkpoint = async () => {
      if (this.stopping) throw new Stopping();
      if (Date.now() - lastRenewal > this.o.leaseMs / 3) {
        lastRenewal = Date.now();
        if (!(await renewLease(this.o.db, job.id, this.owner, this.o.leaseMs))) throw new Stopping();
      }
    };
    try {
      // The models are chosen when the job starts and kept for the whole job.
      await this.chooseEmbedder();
      const models = { detectorPath: currentModelPath(this.o.dataDir), tagModelPath: currentModelPath(this.o.dataDir, 'tags') };
      this.running++;
      try {
        await processSceneJob(
          {
            db: this.o.db,
            dataDir: this.o.dataDir,
            bucket: this.o.bucket,
            analyze: (images, identifier, hints, readPrices) => this.analyze(images, identifier, models, checkpoint, hints, readPrices),
            analyzer: this.analyzer,
            checkpoint,
            baseUrl: this.o.baseUrl,
          },
          job,
        );
      } finally {
        this.running--;
      }
    } catch (e) {
      try {
        if (e instanceof Stopping) {
          // Not the job's fault: give the attempt back.
          await write(this.o.db, (ctx) => returnJob(ctx, job.id, this.owner));
          return;
        }
        if (e instanceof BucketUnavailableError) {
          // The central's bucket away (its photos are there): not the job's fault either; given back, and
          // this loop waits as a client would be told to, so an outage does not use up the job's attempts.
          this.o.log?.(`recognition job ${job.id} waits for the bucket`, e);
          await write(this.o.db, (ctx) => returnJob(ctx, job.id, this.owner));
          await this.sleep(BUCKET_RETRY_AFTER_S * 1000);
          return;
        }
        const message = e instanceof Error ? e.message : String(e);
        this.o.log?.(`recognition job ${job.id} failed (attempt ${job.attempts})`, e);
        const retry = job.attempts < MAX_ATTEMPTS;
        if (retry) await write(this.o.db, (ctx) => releaseJob(ctx, job.id, message, true));
        else await failJob(this.o.db, job, message, `Recognition failed: ${message}`);
      } catch (inner) {
        // The database itself failed (closing?): the lease expires and the job is claimed again.
        this.o.log?.('recording a recognition job failure failed', inner);
      }
    }
  }

  private async webhookLoop(): Promise<void> {
    while (!this.stopping) {
      let attempted = 0;
      try {
        attempted = await deliverDue(this.o.db, { baseBackoffMs: this.o.webhookBackoffMs, reach: this.o.webhookReach }, () => this.stopping);
      } catch (e) {
        this.o.log?.('webhook delivery failed', e);
      }
      if (attempted === 0) await this.sleep(this.o.pollMs);
    }
  }
}
