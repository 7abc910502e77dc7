// The persistent job queue, in the same database as everything else: a job is a row, claimed with a
// lease (owner + expiry) that the worker renews while it works. A server killed mid-job leaves the
// row `running` with a lease that expires, and the next worker to start claims it again, so work
// resumes after a restart. A job that keeps failing ends `failed` and its reports end ERROR.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Kysely } from 'kysely';
import { newId, now } from '../../storage/ids.js';
import type { Database } from '../../storage/schema.js';
import { write, type WriteContext } from '../../storage/transaction.js';
import { countPendingJobs, endJobLease, extendLease, insertJob, leaseJob, nextClaimableJob, requeueJob, runningJobs, unclaimJob } from '../queries.js';

export const MAX_ATTEMPTS = 3;

/**
 * A worker's lease owner names its host and process, so that a restarted server can tell the jobs of
 * its dead predecessor from those of a live process (another server on the same database).
 */
export function newLeaseOwner(host = os.hostname(), pid = process.pid): string {
  return `worker-${host}-${pid}-${randomBytes(4).toString('hex')}`;
}

const LEASE_OWNER = /^worker-(.+)-(\d+)-[0-9a-f]{8}$/;

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Hands back to the queue, at once, the running jobs leased by a process of this host that no longer
 * exists (a server killed mid-job), instead of waiting for their leases to expire. Processes on other
 * hosts, and live ones here, keep theirs. The attempt still counts: a job that kills its server is
 * not retried for ever.
 */
export async function reclaimOrphanedJobs(db: Kysely<Database>, host = os.hostname()): Promise<number> {
  const running = await runningJobs(db);
  const orphaned = running.filter((r) => {
    const m = LEASE_OWNER.exec(r.lease_owner ?? '');
    return m !== null && m[1] === host && Number(m[2]) !== process.pid && !processExists(Number(m[2]));
  });
  if (orphaned.length === 0) return 0;
  await write(db, async (ctx) => {
    for (const r of orphaned) await requeueJob(ctx.trx, r.id, r.lease_owner, now());
  });
  return orphaned.length;
}

export interface ClaimedJob {
  id: string;
  sceneId: string;
  reportIds: string[];
  attempts: number;
}

export async function enqueueJob(ctx: WriteContext, sceneId: string, reportIds: string[]): Promise<string> {
  const at = now();
  const id = newId();
  await insertJob(ctx.trx, { id, scene_id: sceneId, reports: JSON.stringify(reportIds), status: 'queued', attempts: 0, lease_owner: null, lease_until: null, last_error: null, created_at: at, updated_at: at });
  return id;
}

/** Claims the oldest queued job, or a running one whose lease has expired (its worker died). */
export async function claimJob(db: Kysely<Database>, owner: string, leaseMs: number): Promise<ClaimedJob | null> {
  return write(db, async (ctx) => {
    const at = new Date();
    // Several server processes over one PostgreSQL (the central): a job row another process is
    // claiming right now is locked and skipped rather than claimed twice.
    const row = await nextClaimableJob(ctx.trx, at.toISOString());
    if (!row) return null;
    const attempts = row.attempts + 1;
    // Only if the row is still as read (compare-and-set): another server process on the same
    // database (`serve --workers N`) that claimed it first leaves nothing to update here.
    const lease = { owner, until: new Date(at.getTime() + leaseMs).toISOString(), attempts };
    if (!(await leaseJob(ctx.trx, row, lease, at.toISOString()))) return null;
    return { id: row.id, sceneId: row.scene_id, reportIds: JSON.parse(row.reports) as string[], attempts };
  });
}

/** Extends the lease; false when the job is no longer ours (then the worker stops working on it). */
export async function renewLease(db: Kysely<Database>, jobId: string, owner: string, leaseMs: number): Promise<boolean> {
  return extendLease(db, jobId, owner, new Date(Date.now() + leaseMs).toISOString());
}

export async function finishJob(ctx: WriteContext, jobId: string): Promise<void> {
  await endJobLease(ctx.trx, jobId, 'done', now());
}

/** Gives the job back for another attempt (status queued), or ends it as failed. */
export async function releaseJob(ctx: WriteContext, jobId: string, error: string, retry: boolean): Promise<void> {
  await endJobLease(ctx.trx, jobId, retry ? 'queued' : 'failed', now(), error);
}

export async function pendingJobCount(db: Kysely<Database>): Promise<number> {
  return countPendingJobs(db);
}

/** Hands an interrupted job back without counting the attempt (the worker stopped, not the job). */
export async function returnJob(ctx: WriteContext, jobId: string, owner: string): Promise<void> {
  await unclaimJob(ctx.trx, jobId, owner, now());
}
