// The tus upload locker shared by central processes (sync/central/upload-locker.ts), on a real
// PostgreSQL: two lockers on two connection pools stand for two processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgCluster } from '../../scripts/pg-cluster.mjs';
import { openDatabaseTarget, type OpenDatabase } from '../../main/server/storage/database.js';
import { PgAdvisoryLocker } from '../../main/server/sync/central/upload-locker.js';

const cluster = new PgCluster();
let one: OpenDatabase;
let two: OpenDatabase;

beforeAll(async () => {
  await cluster.start();
  one = await openDatabaseTarget({ kind: 'postgres', connectionString: cluster.url });
  two = await openDatabaseTarget({ kind: 'postgres', connectionString: cluster.url });
}, 120_000);

afterAll(async () => {
  await one?.close();
  await two?.close();
  cluster.stop();
});

/** Tries to take the lock for `ms`; whether it was taken. */
async function take(locker: PgAdvisoryLocker, id: string, ms: number, release = () => undefined): Promise<boolean> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), ms);
  try {
    await locker.newLock(id).lock(stop.signal, release);
    return true;
  } catch (error) {
    expect((error as { status_code?: number }).status_code).toBe(423);
    return false;
  } finally {
    clearTimeout(timer);
  }
}

describe('the upload locker shared through PostgreSQL', () => {
  it('one process at a time per upload; freed by unlock and by the holder closing (a killed process: test/sync/s3-central.test.ts)', async () => {
    const a = new PgAdvisoryLocker(one.db);
    const b = new PgAdvisoryLocker(two.db);
    expect(await take(a, 'upload-1', 300)).toBe(true);
    // Another process waits, then is told to retry; another upload is free.
    expect(await take(b, 'upload-1', 400)).toBe(false);
    expect(await take(b, 'upload-2', 300)).toBe(true);
    await a.newLock('upload-1').unlock();
    expect(await take(b, 'upload-1', 400)).toBe(true);
    // Within one process too (a session's advisory locks are re-entrant: the table in memory decides),
    // and the holder is asked to let go.
    let asked = 0;
    expect(await take(b, 'upload-3', 300, () => void asked++)).toBe(true);
    expect(await take(b, 'upload-3', 300)).toBe(false);
    // A process that stops frees its locks.
    expect(await take(a, 'upload-1', 300)).toBe(false);
    await b.close();
    expect(await take(a, 'upload-1', 2_000)).toBe(true);
    expect(await take(a, 'upload-3', 2_000)).toBe(true);
    expect(asked).toBeGreaterThan(0);
    await a.close();
  }, 60_000);
});
