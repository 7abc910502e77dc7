// Recognition-error and out-of-stock-reason messages about an SKU in a scene, with their
// confirmation images: validated (the SKU, the scene and the images exist), stored, listed.
import type { Kysely } from 'kysely';
import { ValidationError, messages } from '../domain/errors.js';
import { newId, now } from '../storage/ids.js';
import type { Database } from '../storage/schema.js';
import { write } from '../storage/transaction.js';
import { missingUploads } from '../domain/uploads.js';
import { insertMessage, listMessageRows, sceneExists, skuExists, type MessageKind } from './queries.js';

export type { MessageKind };

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
  if (!(await skuExists(db, input.sku_gid))) errors.sku_gid = [messages.doesNotExist(input.sku_gid)];
  if (!(await sceneExists(db, input.scene))) errors.scene = [messages.doesNotExist(input.scene)];
  const missing = await missingUploads(db, images);
  if (missing.length > 0) errors.images = [messages.doesNotExist(missing[0])];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return write(db, async (ctx) => {
    const at = now();
    const id = newId();
    const row = { id, sku_id: input.sku_gid, scene_id: input.scene, message: input.message ?? null, reason: input.reason ?? null, images: JSON.stringify(images), created_at: at, updated_at: at };
    await insertMessage(ctx.trx, kind, row);
    ctx.changed(kind === 'oos_reasons' ? 'oos_reason' : 'recognition_error', id);
    return id;
  });
}

export async function listSceneMessages(db: Kysely<Database>, kind: MessageKind, page: { limit: number; offset: number }, scene?: string) {
  const { count, rows } = await listMessageRows(db, kind, page, scene);
  return {
    count,
    results: rows.map((m) => ({
      id: m.id,
      sku_gid: m.sku_id,
      scene: m.scene_id,
      message: m.message ?? null,
      ...(kind === 'oos_reasons' ? { reason: m.reason ?? null } : {}),
      images: JSON.parse(m.images) as string[],
      created_date: m.created_at,
    })),
  };
}
