import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// about.ts shows its box through electron's dialog; only its server query runs here.
vi.mock('electron', async () => (await import('./fake-electron.js')).electron);
import { issueSessionKey, revokeOrphanedSessionKeys, sessionKeyName } from '../../main/host/session-key.js';
import { createApiKey, listApiKeys, verifyApiKey } from '../../main/server/domain/api-keys.js';
import { openDatabase, type OpenDatabase } from '../../main/server/storage/database.js';
import { write } from '../../main/server/storage/transaction.js';

let dir: string;
let database: OpenDatabase;
beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-keys-'));
  database = await openDatabase(dir);
});
afterEach(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('UI session keys', () => {
  it('are valid admin API keys (the UI imports and manages keys), named after their owner and process, until revoked', async () => {
    const key = await issueSessionKey(database.db, 'npm start web UI', 4242);
    expect(await verifyApiKey(database.db, key.token)).toEqual({ id: key.id, name: 'npm start web UI session (pid 4242)', role: 'admin', root_key_id: key.id });
    await key.revoke();
    await key.revoke(); // idempotent: quitting twice is harmless
    expect(await verifyApiKey(database.db, key.token)).toBeUndefined();
  });

  it('do not pile up: keys of dead processes are revoked, live ones and other keys kept', async () => {
    const db = database.db;
    const named = (name: string) => write(db, (ctx) => createApiKey(ctx, { name, role: 'integration' }));
    const dead = await named(sessionKeyName('npm start web UI', 111));
    const alive = await named(sessionKeyName('npm start web UI', 222));
    const desktop = await named(sessionKeyName('desktop app', 111));
    const user = await named('sync laptop 7 (pid 111)');

    const revoked = await revokeOrphanedSessionKeys(db, 'npm start web UI', (pid) => pid === 222);
    expect(revoked).toEqual([dead.id]);
    const state = Object.fromEntries((await listApiKeys(db)).map((k) => [k.id, k.revoked_date !== null]));
    expect(state).toEqual({ [dead.id]: true, [alive.id]: false, [desktop.id]: false, [user.id]: false });
  });

  it('a new session revokes the one a crashed run of the same owner left behind', async () => {
    // A pid far above any real one stands for a process that no longer exists.
    const crashed = await issueSessionKey(database.db, 'desktop app', 2 ** 30);
    const next = await issueSessionKey(database.db, 'desktop app');
    expect(await verifyApiKey(database.db, crashed.token)).toBeUndefined();
    expect(await verifyApiKey(database.db, next.token)).toBeDefined();
  });
});

describe('the About box’s model version', () => {
  it('is asked of the running server’s info endpoint with the session key', async () => {
    const { startServer } = await import('../../main/server/server.js');
    const { modelVersionFromServer } = await import('../../main/electron/about.js');
    const server = await startServer({ dataDir: path.join(dir, 'served'), port: 0 });
    try {
      const key = await issueSessionKey(server.app.db, 'desktop app');
      const statuses: number[] = [];
      const recording = {
        inject: async (o: { method: 'GET'; url: string; headers: Record<string, string> }) => {
          const res = await server.app.inject(o);
          statuses.push(res.statusCode);
          return res;
        },
      };
      const info = (await server.app.inject({ url: '/api/app/v1/info/', headers: { authorization: `Token ${key.token}` } })).json();
      expect(await modelVersionFromServer(recording as never, key.token)).toBe(info.model_version ?? 'unknown');
      expect(statuses).toEqual([200]);
      expect(await modelVersionFromServer(recording as never, 'sa_wrong')).toBe('unknown');
      expect(statuses).toEqual([200, 401]);
    } finally {
      await server.close();
    }
  });
});
