// Webhooks through a real local receiver: each report is POSTed when ready, in the interface's shape,
// signed with HMAC-SHA256 over the raw body; a receiver that fails twice gets the delivery on the
// third attempt (exponential backoff), and the delivery log says so.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../main/server/scenes/webhooks/signing.js';
import { backoffMs } from '../../main/server/scenes/webhooks/deliveries.js';
import { startTestServer, type TestServer } from '../api/harness.js';
import { composeShelf } from './fixtures.js';
import { createSku, upload, waitForReports } from './helpers.js';
import { referenceFiles } from './fixtures.js';

// The test's receiver listens on loopback: allowed explicitly, as a local integration would (docs/api.md).
process.env.SHELF_AUDIT_ALLOW_PRIVATE_URLS = '1';

// A first retry short enough for a test, long enough that the two waits' windows (each backoff plus
// up to one idle poll of the delivery loop) cannot overlap: a constant delay fails one of them.
const BASE_MS = 1000;
process.env.SHELF_AUDIT_WEBHOOK_BACKOFF_MS = String(BASE_MS);
/** The delivery loop's idle poll (jobs/worker.ts), and what a loaded machine adds on top. */
const POLL_MS = 250;
const SLACK_MS = 600;

interface Received {
  at: number;
  body: string;
  signature: string | undefined;
  status: number;
}

let t: TestServer;
let receiver: http.Server;
let receiverUrl: string;
const received: Received[] = [];
let failuresLeft = 2;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const status = failuresLeft > 0 ? 503 : 200;
      if (failuresLeft > 0) failuresLeft--;
      received.push({ at: Date.now(), body, signature: req.headers['x-shelf-audit-signature'] as string | undefined, status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'try later');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  t = await startTestServer();
  await createSku(t, 'fanta_pet', referenceFiles('fanta_pet'));
}, 120_000);

afterAll(async () => {
  await t?.close();
  await new Promise((r) => receiver?.close(r));
});

describe('webhook delivery', () => {
  it('retries with backoff until the receiver accepts, signed, in the interface shape', async () => {
    const shelf = await composeShelf([[['fanta_pet', 3]]]);
    const photo = await upload(t, shelf.jpeg);
    const res = await t.post('/api/v1.5/recognize/', { images: [photo.id], report_types: ['FACING_COUNT'], webhook: receiverUrl });
    expect(res.status, res.text).toBe(201);
    const reportId = res.body.reports.FACING_COUNT;
    await waitForReports(t, [reportId]);

    const deadline = Date.now() + 30_000;
    while (!received.some((r) => r.status === 200)) {
      if (Date.now() > deadline) throw new Error(`no accepted delivery after 30 s: ${JSON.stringify(received.map((r) => r.status))}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(received.map((r) => r.status)).toEqual([503, 503, 200]);
    // Exponential backoff: each wait is its backoff (the second twice the first) plus at most one
    // idle poll and some slack, bounded on both sides.
    const wait1 = received[1].at - received[0].at;
    const wait2 = received[2].at - received[1].at;
    expect(backoffMs(2, BASE_MS)).toBe(2 * backoffMs(1, BASE_MS));
    expect(wait1).toBeGreaterThanOrEqual(backoffMs(1, BASE_MS) - 50);
    expect(wait1).toBeLessThanOrEqual(backoffMs(1, BASE_MS) + POLL_MS + SLACK_MS);
    expect(wait2).toBeGreaterThanOrEqual(backoffMs(2, BASE_MS) - 50);
    expect(wait2).toBeLessThanOrEqual(backoffMs(2, BASE_MS) + POLL_MS + SLACK_MS);

    const secret = (await t.get('/api/app/v1/webhook_deliveries/secret/')).body.secret;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    for (const r of received) {
      expect(verifySignature(secret, r.body, r.signature)).toBe(true);
      expect(verifySignature(secret, r.body + ' ', r.signature)).toBe(false);
    }
    const payload = JSON.parse(received[2].body);
    expect(payload).toMatchObject({ id: res.body.id, images: [photo.id], display: null });
    expect(Object.keys(payload.reports)).toEqual([reportId]);
    expect(payload.reports[reportId]).toMatchObject({ id: reportId, status: 'READY', report_type: 'FACING_COUNT' });
    expect(Array.isArray(payload.reports[reportId].json)).toBe(true);

    const log = await t.get(`/api/app/v1/webhook_deliveries/?report=${reportId}`);
    expect(log.status).toBe(200);
    expect(log.body.count).toBe(1);
    expect(log.body.results[0]).toMatchObject({ report: reportId, url: receiverUrl, status: 'delivered', attempts: 3, last_status_code: 200, last_error: null });
  }, 120_000);

  it('keeps retrying a receiver that is down, with the next attempt scheduled in the log', async () => {
    const shelf = await composeShelf([[['fanta_pet', 2]]]);
    const photo = await upload(t, shelf.jpeg);
    const res = await t.post('/api/v1.5/recognize/', { images: [photo.id], webhook: 'http://127.0.0.1:9/nothing-listens-here' });
    expect(res.status).toBe(201);
    const reportId = res.body.reports.FACING_COUNT;
    await waitForReports(t, [reportId]);
    const deadline = Date.now() + 20_000;
    let entry: any;
    do {
      if (Date.now() > deadline) throw new Error(`fewer than 2 attempts after 20 s: ${JSON.stringify(entry)}`);
      await new Promise((r) => setTimeout(r, 200));
      entry = (await t.get(`/api/app/v1/webhook_deliveries/?report=${reportId}`)).body.results[0];
    } while ((entry?.attempts ?? 0) < 2);
    expect(entry).toMatchObject({ status: 'pending', last_status_code: null });
    expect(entry.attempts).toBeGreaterThanOrEqual(2);
    expect(entry.last_error).toBeTruthy();
    expect(Date.parse(entry.next_attempt_at)).toBeGreaterThan(Date.now() - 1000);
  }, 60_000);

  it('refuses a webhook that is not an http(s) URL', async () => {
    const photo = await upload(t, (await composeShelf([[['fanta_pet', 1]]])).jpeg);
    const res = await t.post('/api/v1.5/recognize/', { images: [photo.id], webhook: 'file:///etc/passwd' });
    expect(res.status).toBe(400);
    expect(res.body.webhook).toBeDefined();
  });
});
