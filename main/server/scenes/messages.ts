// Recognition-error and out-of-stock-reason messages about an SKU in a scene, with their
// confirmation images: validated (the SKU, the scene and the images exist), stored, listed.
import type { Kysely } from 'kysely';
import { ValidationError, messages } from '../domain/errors.js';
import { newId, now } from '../storage/ids.js';
import type { Database } from '../storage/schema.js';
import { write } from '../storage/transaction.js';
import { missingUploads } from '../domain/uploads.js';

export type MessageKind = 'recognition_errors' | 'oos_reasons';

export interface SceneMessageInput {
  sku_gid: string;
  scene: string;
  message?: string;
  reason?: string;
  images?: string[];
}

export async function createSceneMessage(db: Kysely<Database>, kind: MessageKind, input: SceneMessageInput): Promise<string> {
  const images = [...new Set(input.images ?? [])];
  const errors: Record<string, string[]> = {};
  const sku = await db.selectFrom('skus').select('id').where('id', '=', input.sku_gid).executeTakeFirst();
  if (!sku) errors.sku_gid = [messages.doesNotExist(input.sku_gid)];
  const scene = await db.selectFrom('scenes').select('id').where('id', '=', input.scene).executeTakeFirst();
  if (!scene) errors.scene = [messages.doesNotExist(input.scene)];
  const missing = await missingUploads(db, images);
  if (missing.length > 0) errors.images = [messages.doesNotExist(missing[0])];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return write(db, async (ctx) => {
    const at = now();
    const id = newId();
    const base = { id, sku_id: input.sku_gid, scene_id: input.scene, message: input.message ?? null, images: JSON.stringify(images), created_at: at, updated_at: at };
    if (kind === 'oos_reasons') await ctx.trx.insertInto('oos_reasons').values({ ...base, reason: input.reason ?? null }).execute();
    else await ctx.trx.insertInto('recognition_errors').values(base).execute();
    ctx.changed(kind === 'oos_reasons' ? 'oos_reason' : 'recognition_error', id);
    return id;
  });
}

export async function listSceneMessages(db: Kysely<Database>, kind: MessageKind, page: { limit: number; offset: number }, scene?: string) {
  const r = db;
  const count = async () => {
    let q = r.selectFrom(kind).select((eb) => eb.fn.countAll().as('n'));
    if (scene !== undefined) q = q.where('scene_id', '=', scene);
    return Number((await q.executeTakeFirstOrThrow()).n);
  };
  let q = r.selectFrom(kind).selectAll();
  if (scene !== undefined) q = q.where('scene_id', '=', scene);
  const rows = (await q.orderBy('data_id').limit(page.limit).offset(page.offset).execute()) as Array<Record<string, unknown>>;
  return {
    count: await count(),
    results: rows.map((m) => ({
      id: m.id as string,
      sku_gid: m.sku_id as string,
      scene: m.scene_id as string,
      message: (m.message as string | null) ?? null,
      ...(kind === 'oos_reasons' ? { reason: (m.reason as string | null) ?? null } : {}),
      images: JSON.parse(m.images as string) as string[],
      created_date: m.created_at as string,
    })),
  };
}
