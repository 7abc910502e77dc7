// A key for the UI of one running app (the desktop window, or the browser tab `npm start` opens), made
// through the server's API-key domain. It is named after its owner and process, revoked when that
// process shuts down cleanly, and one left behind by a process that died is revoked by the next start.
// It is an admin key: the UI imports master data and manages API keys and devices.
import type { Kysely } from 'kysely';
import { createApiKey, listApiKeys, revokeApiKey } from '../server/domain/api-keys.js';
import type { Database } from '../server/storage/schema.js';
import { write } from '../server/storage/transaction.js';

export type SessionOwner = 'desktop app' | 'npm start web UI';

export interface SessionKey {
  id: string;
  token: string;
  revoke(): Promise<void>;
}

const NAME = /^(.*) session \(pid (\d+)\)$/;

export function sessionKeyName(owner: SessionOwner, pid: number): string {
  return `${owner} session (pid ${pid})`;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0 only checks that the process exists
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Revokes unrevoked session keys of `owner` whose process is gone; returns their ids. */
export async function revokeOrphanedSessionKeys(
  db: Kysely<Database>,
  owner: SessionOwner,
  isAlive: (pid: number) => boolean = processAlive,
): Promise<string[]> {
  const orphans = (await listApiKeys(db)).filter((k) => {
    const m = k.revoked_date === null ? NAME.exec(k.name ?? '') : null;
    return m !== null && m[1] === owner && !isAlive(Number(m[2]));
  });
  if (orphans.length > 0) {
    await write(db, async (ctx) => {
      for (const k of orphans) await revokeApiKey(ctx, k.id);
    });
  }
  return orphans.map((k) => k.id);
}

export async function issueSessionKey(
  db: Kysely<Database>,
  owner: SessionOwner,
  pid: number = process.pid,
): Promise<SessionKey> {
  await revokeOrphanedSessionKeys(db, owner);
  const created = await write(db, (ctx) => createApiKey(ctx, { name: sessionKeyName(owner, pid), role: 'admin' }));
  let revoked: Promise<void> | undefined;
  return {
    id: created.id,
    token: created.key,
    revoke() {
      revoked ??= write(db, async (ctx) => {
        await revokeApiKey(ctx, created.id);
      });
      return revoked;
    },
  };
}
