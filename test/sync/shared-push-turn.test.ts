// The push turn shared by the central's processes (sync/central/shared-push-turn.ts): two processes'
// connections to one PostgreSQL, as `serve --workers 2` or two hosts have. One holds it at a time, the
// pacing's wait holds it past a push, and a process that dies lets it go.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabaseTarget, type OpenDatabase } from '../../main/server/storage/database.js';
import { PgSharedPushTurn } from '../../main/server/sync/central/shared-push-turn.js';
import { PgCluster } from '../../scripts/pg-cluster.mjs';
import { ServeProcesses, listeningUrl } from '../serve-listening.js';

const cluster = new PgCluster();
const opened: OpenDatabase[] = [];
const open = async () => {
  const d = await openDatabaseTarget({ kind: 'postgres', connectionString: cluster.url });
  opened.push(d);
  return d;
};
beforeAll(async () => {
  await cluster.start();
}, 60_000);
const KEY = 'shared-push-turn-key-0123456789abcdefgh';
const processes = new ServeProcesses(KEY, {});
afterAll(async () => {
  await processes.closeAll();
  for (const d of opened) await d.close().catch(() => undefined);
  cluster.stop();
});

const settled = async (p: Promise<unknown>, ms: number) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setTimeout(r, ms));
  return done;
};

it('is held by one process at a time; the other gets it when it is let go, after the pacing\'s wait', async () => {
  const [a, b] = [new PgSharedPushTurn((await open()).db), new PgSharedPushTurn((await open()).db)];
  await a.take();
  const bTakes = b.take();
  expect(await settled(bTakes, 150)).toBe(false);
  a.give();
  await bTakes;
  // A takes again while B holds it: it waits; B lets go 200 ms after its push (the office reads).
  const aTakes = a.take();
  const given = performance.now();
  b.give(200);
  expect(await settled(aTakes, 100)).toBe(false);
  await aTakes;
  // Timers may fire a millisecond early.
  expect(performance.now() - given).toBeGreaterThanOrEqual(195);
  // B waits for A as before, and close lets go at once.
  const bAgain = b.take();
  expect(await settled(bAgain, 100)).toBe(false);
  await a.close();
  await bAgain;
  b.give();
  await b.close();
  await expect(a.take()).rejects.toThrow(/closed/);
}, 30_000);

it('is not kept by one process taking it again while its pacing still holds it', async () => {
  const [a, b] = [new PgSharedPushTurn((await open()).db), new PgSharedPushTurn((await open()).db)];
  await a.take();
  a.give(150);
  // B queued first; A's next take comes after B's (a session's locks are re-entrant: A must let go first).
  const bTakes = b.take();
  await new Promise((r) => setTimeout(r, 20));
  const aTakes = a.take();
  await bTakes;
  expect(await settled(aTakes, 100)).toBe(false);
  b.give();
  await aTakes;
  a.give();
  await Promise.all([a.close(), b.close()]);
}, 30_000);

it('goes to another process at once when its holder dies', async () => {
  const dying = await open();
  const a = new PgSharedPushTurn(dying.db);
  const other = await open();
  const b = new PgSharedPushTurn(other.db);
  await a.take();
  const bTakes = b.take();
  expect(await settled(bTakes, 100)).toBe(false);
  // The holder's connection ends (its process killed): PostgreSQL frees its session's locks.
  const killed = await sql<{ n: number }>`
    select count(pg_terminate_backend(l.pid))::int as n from pg_locks l
    where l.locktype = 'advisory' and l.granted and l.pid <> pg_backend_pid()`.execute(other.readDb);
  expect(killed.rows[0].n).toBe(1);
  await bTakes;
  b.give();
  await b.close();
  // The dead holder closes without an error and gives its connection back.
  await a.close();
}, 30_000);

it('a central process holds it through a push while the office reads, and past it by the pacing\'s wait', async () => {
  const central = processes.start(['--role', 'central', '--database', cluster.url]);
  const url = await listeningUrl(central);
  const call = async (method: string, p: string, body?: unknown, key = KEY, headers: Record<string, string> = {}) => {
    const r = await fetch(url + p, { method, headers: { authorization: `Token ${key}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    expect(r.status, `${method} ${p}`).toBeLessThan(300);
    return r.json();
  };
  await call('POST', '/api/v1.5/visits/', { id: 'shape', name: 'Visit', shop: 'shop-1', agent: 'agent-1', started_date: new Date().toISOString() });
  const db = await open();
  const shape = (await sql<{ v: Record<string, unknown> }>`select row_to_json(v) as v from visits v where id = 'shape'`.execute(db.readDb)).rows[0].v;
  const { data_id: _dataId, ...row } = shape;
  const device = await call('POST', '/api/app/v1/devices/', { name: 'turn device', role: 'auditor' });
  const holders = async () => (await sql<{ n: number }>`
    select count(*)::int as n from pg_locks where locktype = 'advisory' and granted
      and objid = (hashtextextended('central:push-turn', 0) & 4294967295)::oid`.execute(db.readDb)).rows[0].n;
  // The office reads, then a device pushes 400 visits.
  await call('GET', '/api/v1.5/visits/?limit=50');
  const at = new Date().toISOString();
  const changes = Array.from({ length: 400 }, (_, i) => ({ n: i + 1, entity: 'visit', id: `turn-${i}`, op: 'upsert', row: { ...row, id: `turn-${i}`, created_at: at, updated_at: at } }));
  await call('POST', '/api/app/v1/sync/push/', { client_time: at, last: 400, changes }, device.key, { 'x-sync-protocol': '1' });
  // Answered: the process still holds the turn for 3 times the push's length (at most 1 s), then lets it go.
  expect(await holders()).toBe(1);
  await new Promise((r) => setTimeout(r, 1200));
  expect(await holders()).toBe(0);
}, 60_000);
