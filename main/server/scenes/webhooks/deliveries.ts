// Webhook deliveries: one row per report to send, written in the same transaction that makes the
// report READY (so a crash cannot lose it), sent by the worker, retried with exponential backoff
// (the next attempt time is stored, so retries continue across restarts), and listed as a log.
import type { Kysely } from 'kysely';
import { OutgoingRequestFailed, guardedFetch, type Reach } from '../../http/outgoing.js';
import { newId, now } from '../../storage/ids.js';
import type { Database, DeliveryStatus } from '../../storage/schema.js';
import type { WriteContext } from '../../storage/transaction.js';
import { sign, SIGNATURE_HEADER, webhookSecret } from './signing.js';
import { dueDeliveries, insertDelivery, listDeliveryRows, updateDelivery } from '../queries.js';

export const MAX_DELIVERY_ATTEMPTS = 12;
const MAX_BACKOFF_MS = 60 * 60 * 1000;
const DELIVERY_TIMEOUT_MS = 10_000;

/** First retry after `baseMs`, then doubling: base, 2 base, 4 base... capped at an hour. */
export function backoffMs(attempts: number, baseMs: number): number {
  return Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, attempts - 1));
}

export async function enqueueDelivery(ctx: WriteContext, delivery: { sceneId: string; reportId: string; url: string; body: unknown }): Promise<void> {
  const at = now();
  const id = newId();
  await insertDelivery(ctx.trx, {
    id,
    scene_id: delivery.sceneId,
    report_id: delivery.reportId,
    url: delivery.url,
    body: JSON.stringify(delivery.body),
    status: 'pending',
    attempts: 0,
    next_attempt_at: at,
    last_status_code: null,
    last_error: null,
    delivered_at: null,
    created_at: at,
    updated_at: at,
  });
}

export interface DeliveryOptions {
  /** First retry delay; doubles per attempt. */
  baseBackoffMs: number;
  /** Which addresses a webhook URL may reach (scenes/plugin.ts decides it from the instance's role and settings). */
  reach: Reach;
}

/** Sends every delivery that is due, one at a time; returns how many were attempted. */
export async function deliverDue(db: Kysely<Database>, options: DeliveryOptions, shouldStop: () => boolean = () => false): Promise<number> {
  const due = await dueDeliveries(db, now(), 20);
  if (due.length === 0) return 0;
  const secret = await webhookSecret(db);
  let attempted = 0;
  for (const d of due) {
    if (shouldStop()) break;
    attempted++;
    let code: number | null = null;
    let error: string | null = null;
    try {
      // Through the guard: a webhook URL is client input, so it reaches only what the instance allows
      // (http/outgoing.ts). Redirects are not followed.
      const res = await guardedFetch(d.url, {
        reach: options.reach,
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          [SIGNATURE_HEADER]: sign(secret, d.body),
          'X-Shelf-Audit-Delivery': d.id,
          'User-Agent': 'shelf-audit-webhook/1',
        },
        body: d.body,
        timeoutMs: DELIVERY_TIMEOUT_MS,
      });
      code = res.status;
      await res.body?.cancel();
      if (!res.ok) error = `HTTP ${res.status}`;
    } catch (e) {
      error = e instanceof OutgoingRequestFailed ? `not delivered: ${e.reason}` : String((e as Error).message);
    }
    const attempts = d.attempts + 1;
    const at = now();
    const update =
      error === null
        ? { status: 'delivered' as const, attempts, last_status_code: code, last_error: null, delivered_at: at, updated_at: at }
        : {
            status: attempts >= MAX_DELIVERY_ATTEMPTS ? ('failed' as const) : ('pending' as const),
            attempts,
            last_status_code: code,
            last_error: error,
            next_attempt_at: new Date(Date.now() + backoffMs(attempts, options.baseBackoffMs)).toISOString(),
            updated_at: at,
          };
    await updateDelivery(db, d.id, update);
  }
  return attempted;
}

export interface DeliveryRecord {
  id: string;
  scene: string;
  report: string;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_date: string;
}

export async function listDeliveries(
  db: Kysely<Database>,
  page: { limit: number; offset: number },
  f: { status?: string; scene?: string; report?: string },
): Promise<{ count: number; results: DeliveryRecord[] }> {
  const { count, rows } = await listDeliveryRows(db, page, f);
  return {
    count,
    results: rows.map((d) => ({
      id: d.id,
      scene: d.scene_id,
      report: d.report_id,
      url: d.url,
      status: d.status,
      attempts: d.attempts,
      next_attempt_at: d.status === 'pending' ? d.next_attempt_at : null,
      last_status_code: d.last_status_code,
      last_error: d.last_error,
      delivered_at: d.delivered_at,
      created_date: d.created_at,
    })),
  };
}
