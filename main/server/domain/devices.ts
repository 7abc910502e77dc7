// Devices enrolled at the central: each laptop gets a device key (shown once, stored as its SHA-256
// like API keys) and a role. Auditors push their own visits; supervisors also pull the visits of the
// devices they supervise (every auditor of this central: docs/sync.md) and may acknowledge them.
import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { newId, now } from '../storage/ids.js';
import type { Database, DeviceTable } from '../storage/schema.js';
import type { WriteContext } from '../storage/transaction.js';
import { hashKey } from './api-keys.js';
import { NotFoundError } from './errors.js';

export type DeviceRole = DeviceTable['role'];
export const DEVICE_KEY_PREFIX = 'sd_';
const PREFIX_LENGTH = 10;

export interface DeviceInfo {
  id: string;
  name: string;
  role: DeviceRole;
  prefix: string;
  created_date: string;
  revoked_date: string | null;
  last_seen_date: string | null;
  last_change: number;
}

function info(row: Omit<Selectable<DeviceTable>, 'data_id' | 'hash'>): DeviceInfo {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    prefix: row.prefix,
    created_date: row.created_at,
    revoked_date: row.revoked_at,
    last_seen_date: row.last_seen_at,
    last_change: Number(row.last_change),
  };
}

export async function createDevice(ctx: WriteContext, input: { name: string; role: DeviceRole }): Promise<DeviceInfo & { key: string }> {
  const key = DEVICE_KEY_PREFIX + randomBytes(32).toString('base64url');
  const row = { id: newId(), name: input.name, role: input.role, prefix: key.slice(0, PREFIX_LENGTH), hash: hashKey(key), created_at: now(), revoked_at: null, last_seen_at: null, last_change: 0 };
  await ctx.trx.insertInto('devices').values(row).execute();
  return { ...info(row), key };
}

export async function listDevices(db: Kysely<Database>): Promise<DeviceInfo[]> {
  return (await db.selectFrom('devices').selectAll().orderBy('data_id').execute()).map(info);
}

export async function revokeDevice(ctx: WriteContext, id: string): Promise<DeviceInfo> {
  const row = await ctx.trx.selectFrom('devices').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw new NotFoundError('device');
  const revoked = row.revoked_at ?? now();
  await ctx.trx.updateTable('devices').set({ revoked_at: revoked }).where('id', '=', id).execute();
  return info({ ...row, revoked_at: revoked });
}

export type DeviceCheck = { ok: true; device: { id: string; name: string; role: DeviceRole } } | { ok: false; reason: 'unknown' | 'revoked' };

/** Who a device key belongs to; a revoked device is told apart from an unknown key. */
export async function verifyDeviceKey(db: Kysely<Database>, key: string): Promise<DeviceCheck> {
  const row = await db.selectFrom('devices').select(['id', 'name', 'role', 'revoked_at']).where('hash', '=', hashKey(key)).executeTakeFirst();
  if (!row) return { ok: false, reason: 'unknown' };
  if (row.revoked_at !== null) return { ok: false, reason: 'revoked' };
  return { ok: true, device: { id: row.id, name: row.name, role: row.role } };
}
