// PostgreSQL ending connections under the server (a restart, an administrator's pg_terminate_backend,
// idle_session_timeout): the process must live on, with its pools opening new connections, and a
// connection held between queries (the central's advisory locks) failing its next query instead of
// ending the process (storage/dialect.ts, survivingLostConnections). Before, node-postgres' error event
// had no listener and the process died: a central on PostgreSQL went down with every restart of it.
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabaseTarget, type OpenDatabase } from '../../main/server/storage/database.js';
import { PgCluster } from '../../scripts/pg-cluster.mjs';
import { ServeProcesses, listeningUrl } from '../serve-listening.js';

const cluster = new PgCluster();
let database: OpenDatabase;
beforeAll(async () => {
  await cluster.start();
  database = await openDatabaseTarget({ kind: 'postgres', connectionString: cluster.url });
}, 60_000);
afterAll(async () => {
  await database?.close();
  cluster.stop();
});

it('lives on when PostgreSQL ends its idle and held connections, and queries again', async () => {
  await sql`select 1`.execute(database.db);
  await sql`select 1`.execute(database.readDb);
  // A connection held between queries, as the advisory locks hold theirs.
  let releaseHeld!: () => void;
  const held = new Promise<typeof database.db>((resolve) => {
    void database.db.connection().execute((conn) => new Promise<void>((release) => {
      releaseHeld = release;
      resolve(conn);
    }));
  });
  const conn = await held;
  try {
    await sql`select 1`.execute(conn);
    // The write pool opens another for this one, idle once answered.
    await sql`select 1`.execute(database.db);
    const pg = (await import('pg')).default;
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    try {
      const ended = await admin.query(`select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
        where pid <> pg_backend_pid() and backend_type = 'client backend'`);
      // The write pool's two (one held, one idle) and the read pool's.
      expect(ended.rows[0].n).toBeGreaterThanOrEqual(3);
    } finally {
      await admin.end();
    }
    // The errors arrive on the sockets a moment later; the process is still here after them.
    await new Promise((r) => setTimeout(r, 300));
    await expect(sql`select 1`.execute(conn)).rejects.toThrow();
  } finally {
    releaseHeld();
  }
  expect((await sql<{ x: number }>`select 2 as x`.execute(database.db)).rows[0].x).toBe(2);
  expect((await sql<{ x: number }>`select 3 as x`.execute(database.readDb)).rows[0].x).toBe(3);
}, 30_000);

const KEY = 'pg-lost-connections-key-0123456789abcdef';
const processes = new ServeProcesses(KEY, {});
afterAll(() => processes.closeAll());

it('a central goes on serving across a PostgreSQL restart, and answers 503 while PostgreSQL is down', async () => {
  const central = processes.start(['--role', 'central', '--database', cluster.url]);
  const url = await listeningUrl(central);
  const headers = { authorization: `Token ${KEY}`, 'content-type': 'application/json' };
  const post = await fetch(`${url}/api/v1.5/brands/`, { method: 'POST', headers, body: JSON.stringify({ id: 'b1', name: 'Before' }) });
  expect(post.status).toBe(201);
  const exited = new Promise<number | null>((resolve) => central.once('exit', (code) => resolve(code)));
  // A fast restart: PostgreSQL ends every connection, the server's idle ones included.
  const data = path.join(cluster.dir, 'data');
  cluster.run('pg_ctl', ['-D', data, '-w', '-m', 'fast', 'restart', '-l', path.join(cluster.dir, 'log'), '-o', `-c listen_addresses='' -k ${cluster.dir} -p ${cluster.port} -F`]);
  const gone = await Promise.race([exited, new Promise((r) => setTimeout(() => r('alive'), 1000))]);
  expect(gone).toBe('alive');
  const after = await fetch(`${url}/api/v1.5/brands/`, { method: 'POST', headers, body: JSON.stringify({ id: 'b2', name: 'After' }) });
  expect(after.status).toBe(201);
  const list = await (await fetch(`${url}/api/v1.5/brands/?ordering=id`, { headers })).json();
  expect(list.results.map((b: { id: string }) => b.id)).toEqual(['b1', 'b2']);

  // PostgreSQL down: reads and writes answer 503 with Retry-After in DRF's shape (500 before), nothing
  // is written, and once it is back the same requests do.
  cluster.run('pg_ctl', ['-D', data, '-w', '-m', 'fast', 'stop']);
  try {
    for (const [method, body] of [['GET', undefined], ['POST', JSON.stringify({ id: 'b3', name: 'While down' })]] as const) {
      const r = await fetch(`${url}/api/v1.5/brands/`, { method, headers, body });
      expect(r.status, method).toBe(503);
      expect(r.headers.get('retry-after')).toBe('5');
      expect(await r.json()).toEqual({ detail: 'The database is unavailable for now: try again later.' });
    }
  } finally {
    cluster.run('pg_ctl', ['-D', data, '-w', 'start', '-l', path.join(cluster.dir, 'log'), '-o', `-c listen_addresses='' -k ${cluster.dir} -p ${cluster.port} -F`]);
  }
  const back = await fetch(`${url}/api/v1.5/brands/`, { method: 'POST', headers, body: JSON.stringify({ id: 'b3', name: 'Back' }) });
  expect(back.status).toBe(201);
  const again = await (await fetch(`${url}/api/v1.5/brands/?ordering=id`, { headers })).json();
  expect(again.results.map((b: { id: string; name: string }) => `${b.id} ${b.name}`)).toEqual(['b1 Before', 'b2 After', 'b3 Back']);
}, 60_000);
