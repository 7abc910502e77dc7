// API keys: 256 random bits, shown once; only their SHA-256 is stored (a fast hash suffices for
// high-entropy secrets, unlike passwords) plus a short prefix so a user can tell keys apart in a list.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { newId, now } from '../storage/ids.js';
import type { ApiKeyTable, Database } from '../storage/schema.js';
import type { WriteContext } from '../storage/transaction.js';
import { NotFoundError } from './errors.js';

export const KEY_PREFIX = 'sa_';
const PREFIX_LENGTH = 10;

export interface ApiKeyInfo {
  id: string;
  name: string | null;
  prefix: string;
  created_date: string;
  last_used_date: string | null;
  revoked_date: string | null;
}

export interface CreatedApiKey extends ApiKeyInfo {
  /** The key itself: returned once, never stored. */
  key: string;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

function info(row: Omit<Selectable<ApiKeyTable>, 'data_id' | 'hash'>): ApiKeyInfo {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_date: row.created_at,
    last_used_date: row.last_used_at,
    revoked_date: row.revoked_at,
  };
}

/** Creates a key; `key` registers a given one (the headless `--api-key`), else a random one is made. */
export async function createApiKey(ctx: WriteContext, options: { name?: string | null; key?: string } = {}): Promise<CreatedApiKey> {
  const key = options.key ?? generateKey();
  const row = {
    id: newId(),
    name: options.name ?? null,
    prefix: key.slice(0, PREFIX_LENGTH),
    hash: hashKey(key),
    created_at: now(),
    last_used_at: null,
    revoked_at: null,
  };
  await ctx.trx.insertInto('api_keys').values(row).execute();
  return { ...info(row), key };
}

/** Registers `key` unless it is already known (a revoked key stays revoked). */
export async function ensureApiKey(ctx: WriteContext, key: string, name: string): Promise<void> {
  if (await findKeyByHash(ctx.trx, key)) return;
  await createApiKey(ctx, { key, name });
}

export async function findKeyByHash(db: Kysely<Database>, key: string) {
  return db.selectFrom('api_keys').select(['id', 'name', 'revoked_at']).where('hash', '=', hashKey(key)).executeTakeFirst();
}

export async function listApiKeys(db: Kysely<Database>): Promise<ApiKeyInfo[]> {
  const rows = await db.selectFrom('api_keys').selectAll().orderBy('data_id').execute();
  return rows.map(info);
}

export async function revokeApiKey(ctx: WriteContext, id: string): Promise<ApiKeyInfo> {
  const row = await ctx.trx.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw new NotFoundError('API key');
  const revoked = row.revoked_at ?? now();
  await ctx.trx.updateTable('api_keys').set({ revoked_at: revoked }).where('id', '=', id).execute();
  return info({ ...row, revoked_at: revoked });
}

/** The key's record when it is valid (known, not revoked), else undefined. */
export async function verifyApiKey(db: Kysely<Database>, key: string): Promise<{ id: string; name: string | null } | undefined> {
  const row = await findKeyByHash(db, key);
  return row && row.revoked_at === null ? { id: row.id, name: row.name } : undefined;
}
