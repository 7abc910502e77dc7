// The laptop's sync loop. It runs beside the app, never in a request: push the outbox in batches,
// send the photos the central lacks, pull what changed, and sleep. While the central does not answer
// it backs off exponentially with full jitter; a refusal it cannot fix by retrying (revoked device,
// skewed clock, older protocol) is said plainly in the status and retried only slowly. The queue is
// never dropped: nothing leaves the outbox, the cursor only moves when the central has applied.
import type { Kysely } from 'kysely';
import { PROTOCOL_HEADER, SYNC_PROTOCOL_VERSION, type PullResponseBody, type PushResponseBody, type SyncStateName, type SyncStatusBody } from '../schemas/sync.js';
import { now } from '../storage/ids.js';
import type { Database } from '../storage/schema.js';
import { onCommit } from '../storage/transaction.js';
import { durable } from '../storage/wal-sync.js';
import { applyPull, listRejections, nextPush, pendingRecords, readSettings, recordPushed, saveSettings } from './device-store.js';

/** Photos travel apart from records (by content hash, resumably): see sync/blobs. */
export interface PhotoTransfer {
  pending(): Promise<{ count: number; bytes: number }>;
  /** Sends every photo the central lacks; reports progress as 0..1. */
  upload(central: string, deviceKey: string, onProgress: (fraction: number) => void): Promise<void>;
  /** Lets go of what it listens to (the engine has stopped). */
  close?(): void;
}

export interface EngineOptions {
  /** Pause after a successful round. */
  intervalMs?: number;
  /** First backoff step and ceiling. */
  backoffMs?: number;
  maxBackoffMs?: number;
  photos?: PhotoTransfer;
  /** The central's detector and embedder models, pulled when they change (sync/models.ts). */
  models?: { pull(central: string, deviceKey: string): Promise<string[]> };
  /** Called with each pulled page once it is applied (derived state, such as a visit's review state). */
  pulled?: (changes: PullResponseBody['changes']) => Promise<void>;
  /** false: the loop is not started here (`serve --workers N`: only the first process syncs). */
  run?: boolean;
}

/** A refusal with a state of its own (what the user is told) rather than "offline". */
class SyncRefused extends Error {
  constructor(
    readonly state: SyncStateName,
    message: string,
  ) {
    super(message);
  }
}

const MESSAGES: Record<SyncStateName, string> = {
  not_configured: 'Sync is not set up: enter the central URL and this device key in Settings.',
  central: 'This is the central instance: laptops sync into it.',
  idle: 'Up to date with the central.',
  syncing: 'Syncing with the central…',
  offline: 'The central does not answer; retrying. Your work stays queued.',
  revoked: 'The central refused this device key (revoked or unknown): ask for a new one. Your work stays queued.',
  clock_skew: "This computer's clock is far off the central's: correct the date and time. Your work stays queued.",
  outdated: "This app's sync protocol is older than the central's: update the app. Your work stays queued.",
  error: 'Sync failed; retrying. Your work stays queued.',
};

export class SyncEngine {
  private state: SyncStateName = 'not_configured';
  private message = MESSAGES.not_configured;
  private lastError: string | null = null;
  private lastAttempt: string | null = null;
  private nextAttempt: string | null = null;
  private progress: number | null = null;
  private failures = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private unsubscribe: (() => void) | null = null;
  private readonly intervalMs: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: EngineOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 30_000;
    this.backoffMs = options.backoffMs ?? 1_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 5 * 60_000;
  }

  start(): void {
    this.stopped = false;
    // A local change is pushed soon after it commits, not only at the next interval.
    this.unsubscribe = onCommit(this.db, () => {
      if (this.state === 'idle' && !this.running) this.schedule(500);
    });
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
    this.options.photos?.close?.();
  }

  /** Settings changed: forget the failures and try now. */
  reconfigured(): void {
    this.failures = 0;
    if (!this.stopped) this.schedule(0);
  }

  /** One round now (after the one in progress, if any); resolves when it ends. */
  async runNow(): Promise<void> {
    if (this.running) await this.running.catch(() => undefined);
    await this.round();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.nextAttempt = new Date(Date.now() + ms).toISOString();
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.round();
    }, ms);
    this.timer.unref?.();
  }

  private round(): Promise<void> {
    if (this.running) return this.running;
    this.running = (async () => {
      let delay = this.intervalMs;
      try {
        const ok = await this.once();
        if (ok) this.failures = 0;
      } catch (error) {
        this.failures += 1;
        const refused = error instanceof SyncRefused;
        this.state = refused ? error.state : 'offline';
        this.message = MESSAGES[this.state];
        this.lastError = error instanceof Error ? error.message : String(error);
        // Full jitter: a fleet of laptops coming back at once spreads out instead of stampeding.
        const ceiling = refused ? this.maxBackoffMs : Math.min(this.maxBackoffMs, this.backoffMs * 2 ** Math.min(this.failures, 20));
        delay = refused ? this.maxBackoffMs : Math.max(50, Math.random() * ceiling);
      } finally {
        this.progress = null;
        this.running = null;
      }
      if (this.state !== 'not_configured') this.schedule(delay);
    })();
    return this.running;
  }

  /** One round: false when sync is not configured. */
  private async once(): Promise<boolean> {
    const settings = await readSettings(this.db);
    const central = settings.central_url?.replace(/\/+$/, '');
    const key = settings.device_key;
    if (!central || !key) {
      this.state = 'not_configured';
      this.message = MESSAGES.not_configured;
      return false;
    }
    this.lastAttempt = now();
    this.state = 'syncing';
    this.message = MESSAGES.syncing;
    let pushed = Number(settings.pushed_seq ?? 0);
    // Bounded: a queue longer than this many batches continues in the next round.
    for (let i = 0; i < 200; i++) {
      const body = await nextPush(this.db, pushed);
      if (!body) break;
      const answer = await this.call<PushResponseBody>(central, key, 'POST', '/api/app/v1/sync/push/', body);
      await recordPushed(this.db, { ...answer, last_change: Math.max(answer.last_change, body.last) });
      pushed = Math.max(answer.last_change, body.last);
    }
    // Page by page, each applied with its cursor in one transaction: a first pull of a large catalog
    // that is cut off keeps the pages it has.
    for (let i = 0; i < 10_000; i++) {
      const cursor = (await readSettings(this.db)).pull_cursor ?? '0';
      const pull = await this.call<PullResponseBody>(central, key, 'GET', `/api/app/v1/sync/pull/?cursor=${encodeURIComponent(cursor)}&client_time=${encodeURIComponent(now())}`);
      await applyPull(this.db, pull);
      // The central says which role this device has (a supervisor's app opens on the overview).
      if (pull.device_role && pull.device_role !== (await readSettings(this.db)).device_role) await saveSettings(this.db, { device_role: pull.device_role });
      await this.options.pulled?.(pull.changes);
      if (!pull.more) break;
    }
    // After the pull: photos of records pulled this round (reference images, a supervisor's visits)
    // come down in the same round.
    if (this.options.photos) {
      this.progress = 0;
      await this.options.photos.upload(central, key, (f) => (this.progress = f));
      this.progress = null;
    }
    await this.options.models?.pull(central, key);
    await saveSettings(this.db, { last_success: now() });
    this.state = 'idle';
    this.message = MESSAGES.idle;
    this.lastError = null;
    return true;
  }

  private async call<T>(central: string, key: string, method: string, path: string, body?: unknown): Promise<T> {
    // A push (or cursor) read from the database leaves only once it is on disk (storage/wal-sync.ts).
    await durable(this.db);
    let res: Response;
    try {
      res = await fetch(central + path, {
        method,
        headers: {
          authorization: `Token ${key}`,
          [PROTOCOL_HEADER]: String(SYNC_PROTOCOL_VERSION),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (error) {
      throw new Error(`${central} did not answer: ${(error as Error).cause ?? (error as Error).message}`);
    }
    const text = await res.text();
    let parsed: any = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: reported below by status */
    }
    if (res.ok && parsed) return parsed as T;
    const detail = typeof parsed?.detail === 'string' ? parsed.detail : `HTTP ${res.status}`;
    if (res.status === 401) throw new SyncRefused('revoked', detail);
    if (res.status === 426) throw new SyncRefused('outdated', detail);
    if (res.status === 409 && parsed?.code === 'clock_skew') throw new SyncRefused('clock_skew', detail);
    if (res.status >= 400 && res.status < 500) throw new SyncRefused('error', `${res.status}: ${detail}`);
    throw new Error(`${res.status}: ${detail}`);
  }

  async status(): Promise<SyncStatusBody> {
    const settings = await readSettings(this.db);
    const photos = (await this.options.photos?.pending()) ?? { count: 0, bytes: 0 };
    return {
      state: this.state,
      message: this.lastError && this.state !== 'idle' ? `${this.message} (${this.lastError})` : this.message,
      central_url: settings.central_url ?? null,
      pending_records: await pendingRecords(this.db, Number(settings.pushed_seq ?? 0)),
      pending_photos: photos.count,
      pending_photo_bytes: photos.bytes,
      progress: this.progress,
      last_success: settings.last_success ?? null,
      last_error: this.lastError,
      last_attempt: this.lastAttempt,
      next_attempt: this.stopped ? null : this.nextAttempt,
      rejections: await listRejections(this.db),
      device_role: settings.device_role === 'supervisor' || settings.device_role === 'auditor' ? settings.device_role : null,
    };
  }
}
