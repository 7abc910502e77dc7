// Every write runs here: one transaction, and in the same transaction one outbox row per changed
// record, so the sync engine can push exactly what changed and never sees a half-applied write.
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { randomInt } from 'node:crypto';
import { isPostgres } from './dialect.js';
import { now } from './ids.js';
import { insertRow, preparedByShape, rowColumns } from './prepared-query.js';
import { walSyncOf } from './wal-sync.js';
import type { SyncEntityName } from './sync-registry.js';
import type { Database } from './schema.js';

export type Trx = Transaction<Database>;

/** What a committed write tells read caches it changed: a synced entity, or the import log. */
export type ChangedName = SyncEntityName | 'import';

export interface WriteContext {
  trx: Trx;
  /**
   * Records that `entity` row `id` was created/updated ('upsert') or deleted. `deviceId`: the central
   * applying a device's push names it, so pulls never echo that change back to the device.
   */
  changed(entity: SyncEntityName, id: string, op?: 'upsert' | 'delete', deviceId?: string | null): void;
  /** Tells read caches `entity` changed without an outbox row (rows a laptop pulled from the central). */
  touched(entity: ChangedName): void;
}

type Listener = (entities: ReadonlySet<ChangedName>) => void;
const listeners = new WeakMap<Kysely<Database>, Set<Listener>>();

/** Lets read-side caches (list counts) drop what a committed write made stale. */
export function onCommit(db: Kysely<Database>, listener: Listener): () => void {
  let set = listeners.get(db);
  if (!set) listeners.set(db, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/** A write waiting for its group's commit (SQLite). */
interface Queued {
  fn: (ctx: WriteContext) => Promise<unknown>;
  alone: boolean;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** At most this many writes share one SQLite commit. */
export const GROUP_COMMIT_MAX = 64;
const queues = new WeakMap<Kysely<Database>, Queued[]>();

export interface WriteOptions {
  /**
   * In a transaction of its own, never grouped: for a write that changes how the whole transaction
   * behaves (a pull defers SQLite's foreign-key checks to the commit, which would turn a grouped
   * write's broken reference into the failure of every write in the group).
   */
  alone?: boolean;
}

/**
 * Runs `fn` in one transaction. Inside it, use `ctx.trx` only: on SQLite the one connection is held
 * for the whole transaction, so a query through the outer `db` would wait for it forever.
 *
 * On SQLite, writes arriving together share one commit (group commit): a commit's cost (its WAL
 * frames, the wal-index) was most of a small write's, and the one connection serialises them anyway.
 * Each write runs in its own savepoint, so one that fails is undone alone and its error is its
 * caller's; each is answered only once the group has committed and the WAL is synced (storage/wal-sync.ts),
 * so nothing is acknowledged that a crash could lose. PostgreSQL commits each on its own connection (its WAL flush groups them).
 */
export async function write<T>(db: Kysely<Database>, fn: (ctx: WriteContext) => Promise<T>, options: WriteOptions = {}): Promise<T> {
  if (isPostgres(db)) {
    const entities = new Set<ChangedName>();
    const result = await db.transaction().execute((trx) => runWrite(trx, true, fn, entities));
    notify(db, entities);
    return result;
  }
  return new Promise<T>((resolve, reject) => {
    let queue = queues.get(db);
    if (!queue) {
      queues.set(db, (queue = []));
      // Deferred a turn of the event loop: the requests read in the same turn join this group.
      setImmediate(() => void commitQueued(db));
    }
    queue.push({ fn, alone: options.alone ?? false, resolve: resolve as (value: unknown) => void, reject });
  });
}

type Row = Record<string, unknown>;

/** What one new record's write changes: its outbox entity and id. */
export interface Inserted {
  entity: SyncEntityName;
  id: string;
}

/**
 * A write that is one new row of `table` (plain values, as insertRow takes) and nothing else: a new
 * record with nothing to check first. Answers the row's `returning` columns (`column as alias` too).
 *
 * On PostgreSQL the row and its outbox row go in one statement (the outbox insert in a CTE), which is
 * a transaction by itself: one round trip instead of four (BEGIN, insert, outbox row, COMMIT), with
 * the same outcome (both rows or neither; the outbox row stamped with the statement's transaction
 * id). On SQLite it is a write like any other, in group commit.
 */
export async function insertWrite(db: Kysely<Database>, table: keyof Database, row: Row, returning: readonly string[], change: Inserted): Promise<Row> {
  if (!isPostgres(db)) {
    return write(db, async (ctx) => {
      const { rows } = await insertRow<Row>(ctx.trx, table, row, returning);
      ctx.changed(change.entity, change.id);
      return rows[0];
    });
  }
  const columns = rowColumns(row);
  const n = columns.length;
  const q = preparedByShape<Row>(`insert+outbox ${table}(${columns.join(',')})${returning.join(',')}`, n + 3, (d, ...slots) =>
    d
      .with('inserted', (w) => w.insertInto(table).values(Object.fromEntries(columns.map((c, i) => [c, slots[i]]))).returning(returning as string[]))
      .with('changed', (w) => w.insertInto('outbox').values({ entity: slots[n], record_id: slots[n + 1], op: 'upsert', device_id: null, created_at: slots[n + 2] }))
      .selectFrom('inserted')
      .selectAll(),
  );
  const { rows } = await q.execute(db, ...columns.map((c) => row[c]), change.entity, change.id, now());
  notify(db, new Set([change.entity]));
  return rows[0];
}

/** Commits the queue in groups until it is empty (writes queued meanwhile form the next group). */
async function commitQueued(db: Kysely<Database>): Promise<void> {
  const queue = queues.get(db)!;
  while (queue.length > 0) {
    // A group ends before a write that must be alone; that one is a group of one.
    const end = queue[0].alone ? 1 : queue.findIndex((q, i) => i > 0 && q.alone);
    await commitGroup(db, queue.splice(0, Math.min(GROUP_COMMIT_MAX, end > 0 ? end : queue.length)));
  }
  queues.delete(db);
}

// Compiled once: these run for every write (storage/prepared-query.ts says why that matters).
const BEGIN_IMMEDIATE = CompiledQuery.raw('BEGIN IMMEDIATE');
const COMMIT = CompiledQuery.raw('COMMIT');
const ROLLBACK = CompiledQuery.raw('ROLLBACK');
const SAVEPOINT = CompiledQuery.raw('SAVEPOINT group_write');
const RELEASE = CompiledQuery.raw('RELEASE group_write');
const ROLLBACK_TO = CompiledQuery.raw('ROLLBACK TO group_write');

async function commitGroup(db: Kysely<Database>, group: Queued[]): Promise<void> {
  const answers: Array<() => void> = [];
  const entities = new Set<ChangedName>();
  /**
   * Each write in its own savepoint: one that throws is undone alone and answered with its error. A
   * group of one needs none: its error undoes the transaction and is its own.
   */
  const runGroup = async (trx: Trx) => {
    const savepoints = group.length > 1;
    for (const item of group) {
      if (savepoints) await trx.executeQuery(SAVEPOINT);
      const touched = new Set<ChangedName>();
      try {
        const value = await runWrite(trx, false, item.fn, touched);
        if (savepoints) await trx.executeQuery(RELEASE);
        for (const e of touched) entities.add(e);
        answers.push(() => item.resolve(value));
      } catch (error) {
        if (!savepoints) throw error;
        await trx.executeQuery(ROLLBACK_TO);
        await trx.executeQuery(RELEASE);
        answers.push(() => item.reject(error));
      }
    }
  };
  try {
    await db.connection().execute(async (connection) => {
      // IMMEDIATE: the write lock is taken (or waited for, busy_timeout) before anything is read. A
      // deferred transaction that read first cannot take it once another process has committed
      // meanwhile (SQLITE_BUSY_SNAPSHOT, no waiting), which would fail the whole group.
      await connection.executeQuery(BEGIN_IMMEDIATE);
      try {
        // The connection inside BEGIN is the transaction the writes see.
        await runGroup(connection as Trx);
        await connection.executeQuery(COMMIT);
      } catch (error) {
        await connection.executeQuery(ROLLBACK).catch(() => undefined);
        throw error;
      }
    });
  } catch (error) {
    // The commit failed, or undoing one write did, or the group's one write failed: nothing of the
    // group is stored, and each is answered with the error.
    for (const item of group) item.reject(error);
    return;
  }
  // Visible now: read caches drop what it made stale.
  notify(db, entities);
  // Answered once on disk (storage/wal-sync.ts); the next group does not wait for that.
  const sync = walSyncOf(db);
  sync?.committed();
  const synced = sync?.pending();
  if (!synced) for (const answer of answers) answer();
  else
    synced.then(
      () => answers.forEach((answer) => answer()),
      // Committed, but not known to be on disk: not acknowledged.
      (error: unknown) => group.forEach((item) => item.reject(error)),
    );
}

function notify(db: Kysely<Database>, entities: ReadonlySet<ChangedName>): void {
  if (entities.size > 0) for (const l of listeners.get(db) ?? []) l(entities);
}

/** Runs one write's `fn` in `trx` and adds its outbox rows; the entities it changed go to `entities`. */
async function runWrite<T>(trx: Trx, pg: boolean, fn: (ctx: WriteContext) => Promise<T>, entities: Set<ChangedName>): Promise<T> {
  const changes: Array<{ entity: SyncEntityName; record_id: string; op: 'upsert' | 'delete'; device_id: string | null }> = [];
  const value = await fn({
    trx,
    changed(entity, id, op = 'upsert', deviceId) {
      changes.push({ entity, record_id: id, op, device_id: deviceId ?? null });
      entities.add(entity);
    },
    touched(entity) {
      entities.add(entity);
    },
  });
  if (changes.length > 0) {
    const at = now();
    // PostgreSQL stamps each row with its real transaction id (the column's default); on SQLite a
    // random number per write marks which rows were written together, so a pull page never splits
    // a write (sync/central/pull.ts).
    const txid = pg ? {} : { txid: randomInt(1, 2 ** 47) };
    // One row, as most writes have: a prepared insert (storage/prepared-query.ts).
    if (changes.length === 1) {
      await insertRow(trx, 'outbox', { ...changes[0], created_at: at, ...txid });
      return value;
    }
    // Chunked so a large import stays under SQLite's bound-parameter limit.
    for (let i = 0; i < changes.length; i += 200) {
      await trx
        .insertInto('outbox')
        .values(changes.slice(i, i + 200).map((c) => ({ ...c, created_at: at, ...txid })))
        .execute();
    }
  }
  return value;
}
