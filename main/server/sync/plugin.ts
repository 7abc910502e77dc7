// Wires sync into the server: the laptop's engine (started with the server, stopped before the
// database closes) or the central's status, and the rule that on a laptop that syncs, master data is
// the central's: writes to it here are refused with 403. The sync routes are registered with the
// others (routes/index.ts).
import type { FastifyInstance } from 'fastify';
import { HttpError, detail } from '../http/errors.js';
import { refreshPulledModeration } from '../scenes/review.js';
import { RECOGNITION_KPIS } from '../scenes/visit-kpis.js';
import type { SyncStatusBody } from '../schemas/sync.js';
import { now } from '../storage/ids.js';
import { write } from '../storage/transaction.js';
import type { AuthenticatedDevice } from './central/device-auth.js';
import { listRejections, readSettings } from './device-store.js';
import { MASTER_APP_ROUTES, MASTER_ROUTES } from '../storage/sync-registry.js';
import { SyncEngine, type EngineOptions } from './engine.js';
import { ModelTransfer } from './models.js';
import { TusPhotoTransfer } from './photos.js';

declare module 'fastify' {
  interface FastifyInstance {
    syncEngine: Pick<SyncEngine, 'status' | 'runNow' | 'reconfigured'>;
  }
  interface FastifyRequest {
    /** The device that authenticated a push or pull. */
    device?: AuthenticatedDevice;
  }
}

/**
 * Write routes of master data: each master-data entity's routes (storage/sync-registry.ts) under v1.5 and the
 * Data API's spellings (v1.0, v1.1, v1.5), and the import.
 */
export const MASTER_WRITES = new RegExp(
  `^/api/(?:v1\\.5|data/v1\\.[015])/(?:${MASTER_ROUTES.join('|')})(?:/|\\?|$)|^/api/app/v1/(?:${['import', ...MASTER_APP_ROUTES].join('|')})(?:/|\\?|$)`,
);
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const MASTER_DATA_REFUSAL = 'Master data belongs to the central instance: change it there, and sync brings it to this laptop.';

/** The central's status: no engine, but the rejections of every device are visible here. */
function centralStatus(app: FastifyInstance): FastifyInstance['syncEngine'] {
  return {
    async status(): Promise<SyncStatusBody> {
      return {
        state: 'central',
        message: 'This is the central instance: laptops sync into it.',
        central_url: null,
        pending_records: 0,
        pending_photos: 0,
        pending_photo_bytes: 0,
        progress: null,
        last_success: null,
        last_error: null,
        last_attempt: null,
        next_attempt: null,
        rejections: await listRejections(app.db),
        device_role: null,
      };
    },
    async runNow() {},
    reconfigured() {},
  };
}

/**
 * The KPIs recognition writes values of have fixed ids (scenes/visit-kpis.ts) so that every
 * laptop's values point at the same records; the central holds them so those values apply there.
 */
async function ensureRecognitionKpis(app: FastifyInstance): Promise<void> {
  await write(app.db, async (ctx) => {
    for (const def of Object.values(RECOGNITION_KPIS)) {
      const found = await ctx.trx.selectFrom('kpis').select('id').where('id', '=', def.cid).executeTakeFirst();
      if (found) continue;
      const at = now();
      // Several central processes may start at once: the first insert wins, the others change nothing.
      await ctx.trx
        .insertInto('kpis')
        .values({ id: def.cid, cid: def.cid, name: def.name, units: def.units, created_at: at, updated_at: at })
        .onConflict((oc) => oc.doNothing())
        .execute();
      ctx.changed('kpi', def.cid);
    }
  });
}

export async function registerSync(app: FastifyInstance, options: EngineOptions = {}): Promise<void> {
  if (app.serverConfig.role === 'central') {
    app.decorate('syncEngine', centralStatus(app));
    app.addHook('onReady', async () => ensureRecognitionKpis(app));
    return;
  }
  const engine = new SyncEngine(app.db, {
    photos: new TusPhotoTransfer(app.db, app.dataDir),
    models: new ModelTransfer(app.dataDir),
    // A review and the visit's scenes may arrive from different devices: the state follows both.
    pulled: (changes) => refreshPulledModeration(app.db, changes),
    ...options,
  });
  app.decorate('syncEngine', engine);
  if (options.run !== false) app.addHook('onReady', async () => engine.start());
  app.addHook('onClose', async () => engine.stop());
  app.addHook('onRequest', async (request) => {
    if (!WRITE_METHODS.has(request.method) || !MASTER_WRITES.test(request.url)) return;
    const s = await readSettings(app.db);
    if (s.central_url && s.device_key) throw new HttpError(403, detail(MASTER_DATA_REFUSAL));
  });
}
