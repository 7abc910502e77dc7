// API keys: `sa_<public id>.<secret>`, shown once. The public id (16 hex characters) is stored and
// listed in clear so a user can tell keys apart; the secret (256 random bits) is never stored: only
// the SHA-256 of the whole key is (a fast hash suffices for high-entropy secrets, unlike passwords).
// Keys of another form (made before migration 0017, or given to `serve --api-key`) are found by the
// same hash and get a random `key_...` public id that is no part of them.
//
// Each key has a role and records the key that created it and the root of that chain: limits that
// are counted per key (the /recognize rate limit) count per root, so minting keys does not escape them.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { newId, now } from '../storage/ids.js';
import { preparedQuery } from '../storage/prepared-query.js';
import type { ApiKeyTable, Database } from '../storage/schema.js';
import type { WriteContext } from '../storage/transaction.js';
import { ForbiddenError, NotFoundError } from './errors.js';

export const KEY_PREFIX = 'sa_';

/** Weakest first: each role may do what the ones before it may. */
export const ROLES = ['read-only', 'integration', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Whether a key of role `have` may do what needs role `need`. */
export function roleAllows(have: Role, need: Role): boolean {
  return ROLES.indexOf(have) >= ROLES.indexOf(need);
}

export interface ApiKeyInfo {
  id: string;
  public_id: string;
  name: string | null;
  role: Role;
  created_by: string | null;
  created_date: string;
  last_used_date: string | null;
  revoked_date: string | null;
}

export interface CreatedApiKey extends ApiKeyInfo {
  /** The key itself: returned once, never stored. */
  key: string;
}

/** The key that authenticated a request, as the HTTP layer needs it. */
export interface VerifiedApiKey {
  id: string;
  name: string | null;
  role: Role;
  /** The root of its `created_by` chain: the bucket of per-key limits. */
  root_key_id: string;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new key and its public id: `sa_` + 16 hex characters, a dot, 43 base64url characters of secret. */
export function generateKey(): { key: string; publicId: string } {
  const publicId = KEY_PREFIX + randomBytes(8).toString('hex');
  return { key: `${publicId}.${randomBytes(32).toString('base64url')}`, publicId };
}

function syntheticPublicId(): string {
  return `key_${randomBytes(8).toString('hex')}`;
}

function info(row: Omit<Selectable<ApiKeyTable>, 'data_id' | 'hash' | 'root_key_id'>): ApiKeyInfo {
  return {
    id: row.id,
    public_id: row.public_id,
    name: row.name,
    role: row.role,
    created_by: row.created_by,
    created_date: row.created_at,
    last_used_date: row.last_used_at,
    revoked_date: row.revoked_at,
  };
}

export interface CreateApiKeyOptions {
  name?: string | null;
  role: Role;
  /** The key asking for the new one (through the API): it may not give a role above its own. */
  creator?: VerifiedApiKey;
  /** Registers this key text (the headless `--api-key`) instead of generating one. */
  key?: string;
}

export async function createApiKey(ctx: WriteContext, options: CreateApiKeyOptions): Promise<CreatedApiKey> {
  const { creator, role } = options;
  if (creator && !roleAllows(creator.role, role)) throw new ForbiddenError(`A ${creator.role} key cannot create a ${role} key.`);
  const generated = options.key === undefined ? generateKey() : { key: options.key, publicId: syntheticPublicId() };
  const id = newId();
  const row = {
    id,
    public_id: generated.publicId,
    name: options.name ?? null,
    role,
    created_by: creator?.id ?? null,
    root_key_id: creator?.root_key_id ?? id,
    hash: hashKey(generated.key),
    created_at: now(),
    last_used_at: null,
    revoked_at: null,
  };
  await ctx.trx.insertInto('api_keys').values(row).execute();
  return { ...info(row), key: generated.key };
}

/** Registers `key` as an admin key unless it is already known (a known key keeps its role; a revoked one stays revoked). */
export async function ensureApiKey(ctx: WriteContext, key: string, name: string): Promise<void> {
  if (await findKeyByHash(ctx.trx, key)) return;
  await createApiKey(ctx, { key, name, role: 'admin' });
}

// Every request that is not answered from the key cache runs it (every write: http/auth.ts).
const keyByHash = preparedQuery<[string], Pick<Selectable<ApiKeyTable>, 'id' | 'name' | 'role' | 'root_key_id' | 'revoked_at'>>(1, (db, hash) =>
  db.selectFrom('api_keys').select(['id', 'name', 'role', 'root_key_id', 'revoked_at']).where('hash', '=', hash),
);

export async function findKeyByHash(db: Kysely<Database>, key: string) {
  return (await keyByHash.execute(db, hashKey(key))).rows[0];
}

export async function listApiKeys(db: Kysely<Database>): Promise<ApiKeyInfo[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(['id', 'public_id', 'name', 'role', 'created_by', 'created_at', 'last_used_at', 'revoked_at'])
    .orderBy('data_id')
    .execute();
  return rows.map(info);
}

export async function revokeApiKey(ctx: WriteContext, id: string): Promise<ApiKeyInfo> {
  const row = await ctx.trx
    .selectFrom('api_keys')
    .select(['id', 'public_id', 'name', 'role', 'created_by', 'created_at', 'last_used_at', 'revoked_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new NotFoundError('API key');
  const revoked = row.revoked_at ?? now();
  await ctx.trx.updateTable('api_keys').set({ revoked_at: revoked }).where('id', '=', id).execute();
  return info({ ...row, revoked_at: revoked });
}

/** The key's record when it is valid (known, not revoked), else undefined. */
export async function verifyApiKey(db: Kysely<Database>, key: string): Promise<VerifiedApiKey | undefined> {
  const row = await findKeyByHash(db, key);
  if (!row || row.revoked_at !== null) return undefined;
  return { id: row.id, name: row.name, role: row.role, root_key_id: row.root_key_id };
}
