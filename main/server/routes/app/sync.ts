// /api/app/v1/sync/: the device-facing protocol on the central (push, pull: device keys), and the
// laptop's own controls (settings, status, run now: API keys). docs/sync.md.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { HttpError, detail } from '../../http/errors.js';
import { Type } from 'typebox';
import { errorResponses } from '../../schemas/common.js';
import { PullQuery, PullResponse, PushRequest, PushResponse, SyncSettings, SyncSettingsBody, SyncStatus } from '../../schemas/sync.js';
import { checkClock, deviceOnRequest } from '../../sync/central/device-auth.js';
import { CursorError, readPull } from '../../sync/central/pull.js';
import { applyPush } from '../../sync/central/push.js';
import { readSettings, saveSettings } from '../../sync/device-store.js';

/** A push may carry report bodies; the laptop keeps each under 4 MiB (sync/device-store.ts). */
const PUSH_BODY_LIMIT = 32 * 1024 * 1024;

/**
 * Pushes applied at once by one process; the others wait their turn. Fifty devices pushing at once
 * kept the event loop and the pool busy with their round trips (93% busy in a profile), and the
 * office's page reads queued behind them (docs/api.md, "Mixed load"). One at a time (issue 40, the
 * office's reads during 50 devices' pushes on 2 cores): the readers' p99 0.97x to 2.7x of theirs
 * without pushes and 514-582 reads/s, against 3.8x with 2 and 5.5x to 6.6x (73-79 reads/s) with 4,
 * for 1,026-1,462 pushed visits/s against 1,510-1,777 with 4: a push is a device's background sync,
 * which waits, and the office's screens are not.
 */
export const PUSHES_AT_ONCE = 1;

/** A turn among PUSHES_AT_ONCE: resolves with its release once one is free. */
export function pushTurns(slots: number): () => Promise<() => void> {
  let free = slots;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return () =>
    new Promise((resolve) => {
      if (free > 0) {
        free--;
        resolve(release);
      } else waiting.push(() => resolve(release));
    });
}

/**
 * A refusal the laptop acts on by its `code` (clock_skew) or status (426, with the central's
 * `protocol`): declared whole, or the response serializer would drop all but `detail`.
 */
const Refusal = Type.Object(
  { detail: Type.String(), code: Type.Optional(Type.String()), protocol: Type.Optional(Type.Integer()) },
  { description: 'DRF error body, with the refusal\'s code' },
);
/** What the device protocol adds to the usual errors: a skewed clock (409), an outdated app (426). */
const syncRefusals = { ...errorResponses, 409: Refusal, 426: Refusal };

const sync: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['app: sync'];
  const onDevice = deviceOnRequest(app.db);
  const pullPage = app.serverConfig.settings.syncPullPage;
  const pushTurn = pushTurns(PUSHES_AT_ONCE);

  app.post('/sync/push/', {
    config: { auth: false },
    bodyLimit: PUSH_BODY_LIMIT,
    // The device is checked before the body is parsed: a stranger's push costs no parsing.
    onRequest: onDevice,
    schema: { tags, summary: 'Apply a batch of a device\'s changes (device key)', body: PushRequest, response: { 200: PushResponse, ...syncRefusals } },
  }, async (request) => {
    checkClock(request.body.client_time);
    const release = await pushTurn();
    try {
      return await applyPush(app.db, { id: request.device!.deviceId, role: request.device!.role }, request.body);
    } finally {
      release();
    }
  });

  app.get('/sync/pull/', {
    config: { auth: false },
    onRequest: onDevice,
    schema: { tags, summary: 'Changes since the cursor that concern this device (device key)', querystring: PullQuery, response: { 200: PullResponse, ...syncRefusals } },
  }, async (request) => {
    checkClock(request.query.client_time);
    try {
      return { ...(await readPull(app.db, { id: request.device!.deviceId, role: request.device!.role }, request.query.cursor, pullPage)), device_role: request.device!.role };
    } catch (error) {
      if (error instanceof CursorError) throw new HttpError(400, { cursor: [error.message] });
      throw error;
    }
  });

  app.get('/sync/status/', {
    schema: { tags, summary: 'Sync state, pending records and photos, last success and error, rejections', response: { 200: SyncStatus, ...errorResponses } },
  }, async () => app.syncEngine.status());

  app.post('/sync/run/', {
    schema: { tags, summary: 'Sync now (no body); answers the status once the round ends', response: { 200: SyncStatus, ...errorResponses } },
  }, async () => {
    await app.syncEngine.runNow();
    return app.syncEngine.status();
  });

  app.get('/sync/settings/', {
    schema: { tags, summary: 'The central this laptop syncs with (never the device key)', response: { 200: SyncSettings, ...errorResponses } },
  }, async () => {
    const s = await readSettings(app.db);
    return { central_url: s.central_url ?? null, device_key_set: Boolean(s.device_key) };
  });

  app.put('/sync/settings/', {
    schema: { tags, summary: 'Point this laptop at its central (device_key is stored, never sent back)', body: SyncSettingsBody, response: { 200: SyncSettings, ...errorResponses } },
  }, async (request) => {
    if (app.serverConfig.role === 'central') throw new HttpError(400, detail('This is the central instance: it has no central to sync with.'));
    const { central_url, device_key } = request.body;
    // Another device key may be another device: its role is learnt again at the next pull.
    await saveSettings(app.db, { central_url, ...(device_key === undefined ? {} : { device_key, device_role: null }) });
    app.syncEngine.reconfigured();
    const s = await readSettings(app.db);
    return { central_url: s.central_url ?? null, device_key_set: Boolean(s.device_key) };
  });
};
export default sync;
