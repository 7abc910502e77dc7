// API keys with roles: the public id is listed, never any part of the secret;
// admin / integration / read-only are enforced on every route; keys minted by a key share its
// /recognize rate limit; keys made before the roles keep working; the CLI creates keys of a role.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Kysely, Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, hashKey } from '../../main/server/domain/api-keys.js';
import { ForbiddenError } from '../../main/server/domain/errors.js';
import { DATABASE_FILE } from '../../main/server/storage/database.js';
import { createDialect } from '../../main/server/storage/dialect.js';
import { migrations } from '../../main/server/storage/migrations/index.js';
import { write } from '../../main/server/storage/transaction.js';
import { API_KEY, TestServer, startTestServer, type ApiResponse } from './harness.js';

const execFileAsync = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const DENIED = { detail: 'You do not have permission to perform this action.' };

/** The secret part of a key: what follows its listed public id, or the whole key if it does not start with it. */
function secretOf(key: string, publicId: unknown): string {
  return typeof publicId === 'string' && key.startsWith(`${publicId}.`) ? key.slice(publicId.length + 1) : key;
}

/** Every run of 8 characters of the secret that `text` contains. */
function leakedParts(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 8 <= secret.length; i++) if (text.includes(secret.slice(i, i + 8))) found.push(secret.slice(i, i + 8));
  return found;
}

function concrete(url: string): string {
  return url.replace(/:[A-Za-z_]+/g, '1').replace(/\*$/, 'x');
}

async function mint(t: TestServer, role: string, token = API_KEY, name = role): Promise<{ id: string; key: string; public_id: string }> {
  const res = await t.post('/api/app/v1/keys/', { name, role }, { token });
  if (res.status !== 201) throw new Error(`creating a ${role} key -> ${res.status} ${res.text}`);
  return res.body;
}

describe('key roles', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists keys with their public id and role, and no part of any secret (neither listed nor stored)', async () => {
    const made = (await t.post('/api/app/v1/keys/', { name: 'erp' })).body;
    const list = await t.get('/api/app/v1/keys/');
    expect(list.status).toBe(200);
    const listed = JSON.stringify(list.body);
    const stored = JSON.stringify(t.snapshot().api_keys);
    for (const [key, publicId] of [[made.key, made.public_id], [API_KEY, list.body.results[0].public_id]] as const) {
      expect(leakedParts(listed, secretOf(key, publicId)), `listed parts of ${key}`).toEqual([]);
      expect(leakedParts(stored, secretOf(key, publicId)), `stored parts of ${key}`).toEqual([]);
    }
    expect(made.key).toMatch(/^sa_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/);
    expect(made.public_id).toBe(made.key.split('.')[0]);
    expect(made.role).toBe('integration');
    // The key given to `serve --api-key` is not of our form: its listed id is a random one, no prefix of it.
    const given = list.body.results[0];
    expect(given).toMatchObject({ name: 'serve --api-key', role: 'admin', created_by: null });
    expect(given.public_id).toMatch(/^key_[0-9a-f]{16}$/);
    for (const k of list.body.results) expect(k).not.toHaveProperty('prefix');
    expect(list.body.results.find((k: { id: string }) => k.id === made.id)).toMatchObject({ public_id: made.public_id, created_by: given.id });
  });

  it('a read-only key reads the APIs and is refused every write with 403, before its body is read', async () => {
    const reader = (await mint(t, 'read-only')).key;
    expect((await t.get('/api/v1.5/brands/', { token: reader })).status).toBe(200);
    expect((await t.get('/api/data/v1.0/visits/', { token: reader })).status).toBe(200);
    const before = t.snapshot();
    const routes = t.server.app.routeAuth().filter((r) => r.auth && !['GET', 'HEAD', 'OPTIONS'].includes(r.method));
    expect(routes.length).toBeGreaterThan(30);
    for (const r of routes) {
      const res = await t.call(r.method, concrete(r.url), { token: reader, raw: { body: '{not json', type: 'application/json' } });
      expect(res.status, `${r.method} ${r.url}`).toBe(403);
      expect(res.body, `${r.method} ${r.url}`).toEqual(DENIED);
    }
    expect(t.snapshot()).toEqual(before);
  });

  it('an integration key uses the APIs but cannot touch keys, devices or import; an admin key can', async () => {
    const integration = await mint(t, 'integration');
    const as = { token: integration.key };
    expect((await t.post('/api/v1.5/brands/', { id: 'b-int', name: 'Written by an integration' }, as)).status).toBe(201);
    expect((await t.get('/api/v1.5/brands/b-int/', as)).status).toBe(200);

    const before = t.snapshot();
    const refused: Array<[string, string, unknown?]> = [
      ['GET', '/api/app/v1/keys/'],
      ['POST', '/api/app/v1/keys/', { name: 'minted', role: 'integration' }],
      ['POST', '/api/app/v1/keys/', { name: 'escalate', role: 'admin' }],
      ['DELETE', `/api/app/v1/keys/${integration.id}/`],
      ['GET', '/api/app/v1/devices/'],
      ['POST', '/api/app/v1/devices/', { name: 'laptop', role: 'auditor' }],
      ['POST', '/api/app/v1/import/', { brands: [{ id: 'b-imp', name: 'Imported' }] }],
      ['PUT', '/api/app/v1/sync/settings/', { central_url: 'https://elsewhere.example' }],
    ];
    for (const [method, url, json] of refused) {
      const res = await t.call(method, url, { token: integration.key, json });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body).toEqual(DENIED);
    }
    expect(t.snapshot()).toEqual(before);
    // Every route of those families, whatever its method, refuses it.
    for (const r of t.server.app.routeAuth().filter((x) => x.auth && /^\/api\/app\/v1\/(keys|devices|import)\//.test(x.url))) {
      expect((await t.call(r.method, concrete(r.url), as)).status, `${r.method} ${r.url}`).toBe(403);
    }

    const admin = await mint(t, 'admin');
    const asAdmin = { token: admin.key };
    expect((await t.get('/api/app/v1/keys/', asAdmin)).status).toBe(200);
    expect((await t.post('/api/app/v1/devices/', { name: 'laptop', role: 'auditor' }, asAdmin)).status).toBe(201);
    expect((await t.get('/api/app/v1/devices/', asAdmin)).status).toBe(200);
    expect((await t.post('/api/app/v1/import/', { brands: [{ id: 'b-imp', name: 'Imported' }] }, asAdmin)).status).toBe(200);
    const minted = await mint(t, 'read-only', admin.key);
    expect((await t.delete(`/api/app/v1/keys/${minted.id}/`, asAdmin)).status).toBe(200);
    expect((await t.delete(`/api/app/v1/keys/${integration.id}/`, asAdmin)).status).toBe(200);
    expect((await t.get('/api/v1.5/brands/', as)).status).toBe(401);
  });

  it('refuses an unknown role in DRF shape, and a key cannot give a role above its own', async () => {
    const res = await t.post('/api/app/v1/keys/', { name: 'x', role: 'root' });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['role']);
    const reader = { id: 'reader', name: null, role: 'read-only' as const, root_key_id: 'reader' };
    await expect(write(t.server.app.db, (ctx) => createApiKey(ctx, { role: 'integration', creator: reader }))).rejects.toThrow(ForbiddenError);
    const same = await write(t.server.app.db, (ctx) => createApiKey(ctx, { role: 'read-only', creator: reader }));
    expect(same).toMatchObject({ role: 'read-only', created_by: 'reader' });
  });

  it('documents 403 for every authenticated operation', async () => {
    const doc = (await t.get('/api/schema/', { token: null })).body;
    const missing: string[] = [];
    for (const [p, ops] of Object.entries<Record<string, { security?: unknown; responses: Record<string, unknown> }>>(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) if (op.security && !op.responses['403']) missing.push(`${method} ${p}`);
    }
    expect(missing).toEqual([]);
  });
});

describe('the /recognize rate limit', () => {
  it('is shared by every key minted (directly or not) from one key; a key made apart has its own', async () => {
    const t = await startTestServer();
    try {
      const a = await mint(t, 'integration');
      const b = await mint(t, 'integration');
      const subAdmin = await mint(t, 'admin');
      const c = await mint(t, 'integration', subAdmin.key);
      const apart = (await write(t.server.app.db, (ctx) => createApiKey(ctx, { name: 'cli', role: 'integration' }))).key;
      // Invalid bodies: the limit counts every call.
      const post = (token: string) => t.call('POST', '/api/v1.5/recognize/', { json: { images: 'nope' }, token });
      // Calls refused for their role (403, before the limit counts) take nothing from the budget.
      const reader = await mint(t, 'read-only');
      for (let i = 0; i < 5; i++) expect((await post(reader.key)).status).toBe(403);
      const tokens = [a.key, b.key, c.key, subAdmin.key];
      for (let i = 0; i < 100; i++) {
        const res = await post(tokens[i % tokens.length]);
        expect(res.status, res.text).not.toBe(429);
      }
      for (const token of [a.key, b.key, c.key, subAdmin.key, API_KEY]) {
        const res: ApiResponse = await post(token);
        expect(res.status).toBe(429);
        expect(res.body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds\.$/);
      }
      // Minting another key now does not help.
      const fresh = await mint(t, 'integration');
      expect((await post(fresh.key)).status).toBe(429);
      expect((await post(apart)).status).not.toBe(429);
    } finally {
      await t.close();
    }
  });
});

describe('keys made before the roles', () => {
  it('keep working after migration 0017, as admin keys listed under a random id', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-old-keys-'));
    const oldKey = 'sa_' + 'Q'.repeat(20) + 'oldSecretPart' + 'Z'.repeat(10);
    const handle = createDialect({ kind: 'sqlite', file: path.join(dataDir, DATABASE_FILE) });
    const db = new Kysely<any>({ dialect: handle.dialect });
    const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0017'));
    const migrated = await new Migrator({ db, provider: { getMigrations: async () => before } }).migrateToLatest();
    expect(migrated.error).toBeUndefined();
    await db
      .insertInto('api_keys')
      .values({ id: 'old-1', name: 'from 0.1', prefix: oldKey.slice(0, 10), hash: hashKey(oldKey), created_at: '2024-01-01T00:00:00.000Z', last_used_at: null, revoked_at: null })
      .execute();
    await db.destroy();
    handle.close();

    const t = await new TestServer(dataDir).start();
    try {
      const token = { token: oldKey };
      expect((await t.get('/api/v1.5/brands/', token)).status).toBe(200);
      const list = await t.get('/api/app/v1/keys/', token);
      expect(list.status).toBe(200);
      const old = list.body.results.find((k: { id: string }) => k.id === 'old-1');
      expect(old).toMatchObject({ name: 'from 0.1', role: 'admin', created_by: null });
      expect(old.public_id).toMatch(/^key_[0-9a-f]{16}$/);
      expect(leakedParts(JSON.stringify(list.body), oldKey)).toEqual([]);
      expect(JSON.stringify(t.snapshot().api_keys)).not.toContain(oldKey.slice(0, 10));
    } finally {
      await t.close();
    }
  });
});

describe('cli keys', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });
  const cli = (...args: string[]) => execFileAsync(process.execPath, [path.join(root, 'dist/main/cli/cli.js'), 'keys', ...args, '--data-dir', t.dataDir]);

  it('create --role read-only makes a key that reads but cannot write; list shows its id and role, not its secret', async () => {
    const { stdout } = await cli('create', '--name', 'dashboard', '--role', 'read-only');
    expect(stdout).toMatch(/^role: read-only$/m);
    const key = /^key: +(\S+)$/m.exec(stdout)![1];
    expect((await t.get('/api/v1.5/brands/', { token: key })).status).toBe(200);
    expect((await t.post('/api/v1.5/brands/', { name: 'no' }, { token: key })).status).toBe(403);
    const listed = (await cli('list')).stdout;
    const publicId = key.split('.')[0];
    expect(listed).toMatch(new RegExp(`\\t${publicId}\\tread-only\\tdashboard\\t`));
    expect(leakedParts(listed, secretOf(key, publicId))).toEqual([]);
    const integration = /^key: +(\S+)$/m.exec((await cli('create')).stdout)![1];
    expect((await t.post('/api/v1.5/brands/', { name: 'yes' }, { token: integration })).status).toBe(201);
    expect((await t.get('/api/app/v1/keys/', { token: integration })).status).toBe(403);
    await expect(cli('create', '--role', 'root')).rejects.toMatchObject({ code: 2 });
  });
});
