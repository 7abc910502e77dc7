// Commits made durable off the event loop. With `synchronous = FULL` SQLite fsyncs the WAL inside
// COMMIT, in the server's one thread: every request in flight waited ~1 ms per group commit
// (docs/api.md, Fourth pass). The connection runs `synchronous = NORMAL` instead and this module
// fdatasyncs the -wal file on a thread of its own after each commit (storage/wal-sync-thread.ts: the
// loop waits for it at most WAL_SYNC_WAIT_MS, else it ends in the background; libuv's thread pool
// where no thread can run), before anything that commit made visible leaves the process; the next
// group commits meanwhile and one sync covers both.
//
// Why an acknowledged write survives power loss, as under FULL (https://sqlite.org/pragma.html#pragma_synchronous,
// https://sqlite.org/wal.html):
// - In WAL mode a commit is the WAL frames SQLite write()s at COMMIT; NORMAL only leaves out the sync
//   of those frames, which FULL does at the same point. An fdatasync of the -wal file that starts after
//   COMMIT returned puts them on disk (fdatasync is per file, whichever descriptor wrote the pages).
// - NORMAL still syncs everything else as FULL does: the WAL before a checkpoint copies it into the
//   database, the database after (before the WAL may be reused), and a reused WAL's new header. So a
//   frame is only ever overwritten once its content is synced in the database file.
// - A torn tail (frames written, power lost before the sync) is what recovery drops by its checksums
//   under FULL too: those commits were not answered.
// What NORMAL would change alone is visibility: FULL syncs before the commit is visible to other
// connections; here a commit is visible (to this connection, and to other processes) for the ~ms
// before its sync ends. So nothing seen may leave before it is durable: write answers wait for the
// sync (storage/transaction.ts), so do HTTP answers (http/durable-answers.ts), the laptop's sync
// calls (sync/engine.ts) and outgoing requests (http/outgoing.ts), through `durable(db)`, which also syncs what other processes committed and this
// one may have read (PRAGMA data_version moves when another connection commits).
// The -wal file stays open from the first sync to `close()`: SQLite deletes it only when the last
// connection to the database closes, and this connection is open until then (a truncation keeps the
// file). Opening it per sync cost two more trips to the thread pool per commit. Multi-process: each
// process syncs after its own commits.
import { open, type FileHandle } from 'node:fs/promises';
import type SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { TableVersions } from './change-stamp.js';
import { WalSyncThread } from './wal-sync-thread.js';

/**
 * How long the event loop waits for a commit's sync before leaving it to end in the background
 * (storage/wal-sync-thread.ts): the disk's fdatasync here is ~0.4 ms at the median and ~5 ms at the
 * 99th percentile, so most syncs end within it, and a stalled disk holds the loop no longer than this.
 */
export const WAL_SYNC_WAIT_MS = 2;

interface Round {
  /** The own commits and data_version as of the round's start: what it makes durable. */
  commits: number;
  version: unknown;
  /**
   * Every table's version as of the round's start (storage/change-stamp.ts), read outside any
   * transaction: a table whose version is still this is on disk once the round is. Null: not known.
   */
  tables: Map<string, bigint> | null;
  done: Promise<void>;
}

export class WalSync {
  private readonly dataVersion: SQLite.Statement;
  /** This connection's commits so far. */
  private commits = 0;
  /** What the latest successful round made durable. */
  private synced: { commits: number; version: unknown; tables: Map<string, bigint> | null };
  private current: Round | null = null;
  /** The round that starts when the current one ends, with whoever waits for it. */
  private next: Promise<void> | null = null;
  private wal: Promise<FileHandle> | null = null;
  /** Started at the first sync; null where no thread can run (then libuv's thread pool syncs). */
  private thread: WalSyncThread | null | undefined;

  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly walFile: string,
    private readonly tableVersions?: TableVersions,
    /** How long the event loop may wait for a sync (WAL_SYNC_WAIT_MS); 0: never. */
    private readonly waitMs = WAL_SYNC_WAIT_MS,
  ) {
    this.dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
    this.synced = { commits: 0, version: this.dataVersion.get(), tables: null };
  }

  /** Called right after each COMMIT of this connection. */
  committed(): void {
    this.commits++;
  }

  /**
   * Null when every commit this process made, and every other process's commit it can see, is on
   * disk; else a promise that they will be (the running sync when it started after them, else the next).
   */
  pending(): Promise<void> | null {
    const commits = this.commits;
    const version = this.sqlite.open ? this.dataVersion.get() : this.synced.version;
    const covers = (r: { commits: number; version: unknown }) => r.commits >= commits && r.version === version;
    if (covers(this.synced)) return null;
    if (this.current && covers(this.current)) return this.current.done;
    // Syncs run one at a time: the next starts when the running one ends, for all who asked meanwhile
    // (asked first: in the moment between the two, `current` is already cleared).
    if (this.next) return this.next;
    if (!this.current) return this.start().done;
    return (this.next = this.current.done.catch(() => undefined).then(() => {
      this.next = null;
      return this.start().done;
    }));
  }

  /**
   * `pending()` for an answer that shows only these tables' rows: null, without waiting for the sync
   * in flight, when none of them changed since the last round that ended (for a table whose version
   * only this connection moves, also no other process's commit visible since), as when a brand POST
   * is syncing and a SKU page is read; else `pending()`.
   */
  pendingFor(tables: readonly string[]): Promise<void> | null {
    const synced = this.synced.tables;
    // Inside a transaction (a group commit in progress) a version may be one not yet committed.
    if (synced && this.tableVersions && this.sqlite.open && !this.sqlite.inTransaction) {
      // Nothing committed since the last round (pending()'s own test): no table to compare. Asked
      // first, with data_version alone: since a sync mostly ends in the turn of its commit
      // (wal-sync-thread.ts) this is most answers, and PRAGMA data_version costs a third of the
      // statement that reads it with the tables' versions (5 against 14 µs under load).
      if (this.commits === this.synced.commits && this.dataVersion.get() === this.synced.version) return null;
      // One statement for data_version and the tables' versions (one read transaction, not one each).
      const now = this.tableVersions.withDataVersion?.(tables);
      const version = now ? now.dataVersion : this.dataVersion.get();
      // Another process's commit may have changed a table whose version only this connection moves.
      const othersCommitted = version !== this.synced.version;
      let unchanged = true;
      for (let i = 0; i < tables.length; i++) {
        const t = tables[i];
        const v = now ? (now.versions[i] ?? undefined) : this.tableVersions.get(t);
        if (v === undefined || synced.get(t) !== v || (othersCommitted && !this.tableVersions.shared(t))) {
          unchanged = false;
          break;
        }
      }
      if (unchanged) return null;
    }
    return this.pending();
  }

  private start(): Round {
    const open = this.sqlite.open;
    const round: Round = {
      commits: this.commits,
      version: open ? this.dataVersion.get() : this.synced.version,
      tables: this.tableVersions && open && !this.sqlite.inTransaction ? this.tableVersions.all() : null,
      done: this.syncWal(),
    };
    this.current = round;
    void round.done.then(
      // Rounds run one after another: each covers at least what the one before did.
      () => (this.synced = { commits: round.commits, version: round.version, tables: round.tables }),
      // Nothing is known durable: whoever waited is told (through `done`); the next call syncs again.
      () => undefined,
    ).finally(() => {
      if (this.current === round) this.current = null;
    });
    return round;
  }

  /** Waits for the syncs running or due, then closes the -wal file (before the connection closes); never rejects. */
  async close(): Promise<void> {
    while (this.current || this.next) await (this.next ?? this.current!.done).catch(() => undefined);
    await this.thread?.close();
    this.thread = null;
    const wal = this.wal;
    this.wal = null;
    await wal?.then((h) => h.close()).catch(() => undefined);
  }

  /** Ends within the call when the thread synced within the wait (a resolved promise: the same turn). */
  private syncWal(): Promise<void> {
    if (this.thread === undefined) {
      try {
        this.thread = new WalSyncThread(this.walFile);
      } catch {
        this.thread = null;
      }
    }
    if (this.thread?.usable) {
      try {
        return this.thread.sync(this.waitMs) ?? Promise.resolve();
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    return this.syncOnPool();
  }

  private async syncOnPool(): Promise<void> {
    // A failed open is tried again by the next sync.
    this.wal ??= open(this.walFile, 'r+').catch((error: unknown) => {
      this.wal = null;
      throw error;
    });
    await (await this.wal).datasync();
  }
}

const syncs = new Map<Kysely<any>, WalSync>();

/** Makes `db`'s commits wait for `sync` (storage/database.ts, for SQLite); the returned function undoes it. */
export function registerWalSync(db: Kysely<any>, sync: WalSync): () => void {
  syncs.set(db, sync);
  return () => void syncs.delete(db);
}

/** The WalSync of `db`; undefined on PostgreSQL, whose commits are durable when they return. */
export function walSyncOf(db: Kysely<any>): WalSync | undefined {
  return syncs.get(db);
}

/**
 * Null when everything `db` shows is durable, else a promise that it will be: await it before data
 * read from `db` leaves the process.
 */
export function durable(db: Kysely<any>): Promise<void> | null {
  return syncs.get(db)?.pending() ?? null;
}

/** `durable` for an answer that shows only these tables' rows (WalSync.pendingFor). */
export function durableTables(db: Kysely<any>, tables: readonly string[]): Promise<void> | null {
  return syncs.get(db)?.pendingFor(tables) ?? null;
}

/** `durable` for every open database: for requests the server makes (http/outgoing.ts), which do not say what they read. */
export async function allDurable(): Promise<void> {
  await Promise.all([...syncs.values()].map((s) => s.pending()));
}
