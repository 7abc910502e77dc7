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
import { isOfficeRead, PUSH_SHARE_WHILE_READING, PUSH_WAIT_MAX_MS, PUSHES_AT_ONCE, pushTurns, READ_WINDOW_MS } from '../../sync/central/push-turns.js';
import { PgSharedPushTurn } from '../../sync/central/shared-push-turn.js';
import { isPostgres } from '../../storage/dialect.js';
import { readSettings, saveSettings } from '../../sync/device-store.js';

/** A push may carry report bodies; the laptop keeps each under 4 MiB (sync/device-store.ts). */
const PUSH_BODY_LIMIT = 32 * 1024 * 1024;


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
  // On PostgreSQL the central may run as several processes: their turns are one (shared-push-turn.ts).
  const shared = isPostgres(app.db) ? new PgSharedPushTurn(app.db) : undefined;
  if (shared) app.addHook('onClose', () => shared.close());
  const pushTurn = pushTurns(PUSHES_AT_ONCE, { share: PUSH_SHARE_WHILE_READING, readWindowMs: READ_WINDOW_MS, maxWaitMs: PUSH_WAIT_MAX_MS }, shared);
  // On the HTTP server itself: a hook here would see only this plugin's routes, not the office's reads.
  const onRequest = (request: { method?: string; url?: string }) => {
    if (isOfficeRead(request.method ?? '', request.url ?? '')) pushTurn.readSeen();
  };
  app.server.on('request', onRequest);
  app.addHook('onClose', async () => void app.server.off('request', onRequest));

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
