// Runs the queue: up to `concurrency` jobs at once (1 by default: detection and identification are
// CPU-bound, and a second job would only slow the first), plus the webhook sender. Stopping lets a
// running job reach its next checkpoint (between products, between reports), hands it back to the
// queue unfinished, and waits for that, so shutdown never leaves a half-written report.
import type { Kysely } from 'kysely';
import { serverSettings } from '../../config.js';
import type { Database } from '../../storage/schema.js';
import { write } from '../../storage/transaction.js';
import { createDetector, type Detector } from '../detector/index.js';
import { loadEmbedder, useEmbedderModel } from '../identification/embedding.js';
import { IdentifyPool } from '../identification/pool.js';
import { currentModelPath, rollbackModel } from '../model-store.js';
import { deliverDue } from '../webhooks/deliveries.js';
import { failReports, processSceneJob } from './process-scene.js';
import { claimJob, finishJob, MAX_ATTEMPTS, newLeaseOwner, reclaimOrphanedJobs, releaseJob, renewLease, returnJob, type ClaimedJob } from './queue.js';

export interface WorkerOptions {
  db: Kysely<Database>;
  dataDir: string;
  baseUrl: () => string;
  concurrency?: number;
  /** How long a claimed job stays ours without a renewal. */
  leaseMs?: number;
  pollMs?: number;
  /** First webhook retry delay; doubles per attempt. */
  webhookBackoffMs?: number;
  detectorThreads?: number;
  /** Logs failures (the server's logger). */
  log?: (message: string, error?: unknown) => void;
}

class Stopping extends Error {
  override name = 'Stopping';
}

export class RecognitionWorker {
  private readonly owner = newLeaseOwner();
  private readonly o: Required<Omit<WorkerOptions, 'log'>> & Pick<WorkerOptions, 'log'>;
  private stopping = false;
  private loops: Promise<void>[] = [];
  private detector: Promise<Detector> | undefined;
  /** The installed model file the detector was loaded from (null: the shipped one). */
  private detectorPath: string | null = null;
  /** Jobs running now: a replaced detector is closed once they end. */
  private readonly detectorUsers = new Set<Promise<unknown>>();
  // Identification on worker threads (identification/pool.ts) only when asked for: on the shared
  // 2-core test machine it measured no faster than in-process and adds ~150 MB per thread.
  private readonly pool = IdentifyPool.available() && serverSettings().identifyThreads > 0
    ? new IdentifyPool(serverSettings().identifyThreads)
    : undefined;
  private wake: (() => void) | undefined;

  constructor(options: WorkerOptions) {
    this.o = {
      concurrency: 1,
      leaseMs: 15_000,
      pollMs: 250,
      webhookBackoffMs: serverSettings().webhookBackoffMs,
      detectorThreads: 2,
      ...options,
    };
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
    if (this.detector) await (await this.detector.catch(() => null))?.close();
    await this.pool?.close();
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
   * The detector for a job that starts now: the installed model (recognition/model-store.ts) if one
   * is, else the shipped one. A newly installed model is taken up here, between jobs; one that does not
   * load is rolled back (and refused from then on) and the previous model serves the job.
   */
  private getDetector(): Promise<Detector> {
    const wanted = currentModelPath(this.o.dataDir);
    if (this.detector && this.detectorPath !== wanted) {
      const old = this.detector;
      this.detector = undefined;
      // Jobs that already hold the old detector finish with it; it is closed once they have.
      void Promise.all(this.detectorUsers).then(async () => (await old.catch(() => null))?.close());
    }
    if (!this.detector) {
      this.detectorPath = wanted;
      const loading = createDetector({ threads: this.o.detectorThreads, ...(wanted ? { modelPath: wanted } : {}) }).catch(async (error: unknown) => {
        if (!wanted) throw error;
        this.o.log?.(`the installed detector ${wanted} failed to load; rolling back to the previous model`, error);
        await rollbackModel(this.o.dataDir, { refuse: true });
        this.detector = undefined;
        return this.getDetector();
      });
      this.detector = loading;
      // A failed load (missing model file) is retried by the next job rather than cached.
      loading.catch(() => {
        if (this.detector === loading) this.detector = undefined;
      });
    }
    return this.detector;
  }

  /**
   * Takes up a newly installed embedder, or goes back to the previous one, between jobs only: every
   * embedding of a job (and of the catalog it is compared with) must come from one model. One that
   * does not load is rolled back and refused.
   */
  private async chooseEmbedder(): Promise<void> {
    if (this.detectorUsers.size > 0) return; // another job is running: switch when none is
    for (let attempt = 0; attempt < 3; attempt++) {
      const wanted = currentModelPath(this.o.dataDir, 'embedder');
      if (!useEmbedderModel(wanted)) return;
      try {
        await loadEmbedder();
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
      const detector = this.getDetector();
      const processing = processSceneJob({ db: this.o.db, dataDir: this.o.dataDir, detector: () => detector, pool: this.pool, checkpoint, baseUrl: this.o.baseUrl }, job);
      const settled = processing.catch(() => undefined);
      this.detectorUsers.add(settled);
      void settled.then(() => this.detectorUsers.delete(settled));
      await processing;
      await write(this.o.db, (ctx) => finishJob(ctx, job.id));
    } catch (e) {
      try {
        if (e instanceof Stopping) {
          // Not the job's fault: give the attempt back.
          await write(this.o.db, (ctx) => returnJob(ctx, job.id, this.owner));
          return;
        }
        const message = e instanceof Error ? e.message : String(e);
        this.o.log?.(`recognition job ${job.id} failed (attempt ${job.attempts})`, e);
        const retry = job.attempts < MAX_ATTEMPTS;
        await write(this.o.db, (ctx) => releaseJob(ctx, job.id, message, retry));
        if (!retry) await failReports(this.o.db, job, `Recognition failed: ${message}`);
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
        attempted = await deliverDue(this.o.db, this.o.webhookBackoffMs, () => this.stopping);
      } catch (e) {
        this.o.log?.('webhook delivery failed', e);
      }
      if (attempted === 0) await this.sleep(this.o.pollMs);
    }
  }
}
