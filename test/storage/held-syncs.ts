// Holds the server's WAL syncs in a test, to see what waits for them (test/storage/durability.test.ts,
// table-stamp.test.ts).
import { readlinkSync, realpathSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { expect, vi } from 'vitest';
import { DATABASE_FILE } from '../../main/server/storage/database.js';
import { WalSyncThread } from '../../main/server/storage/wal-sync-thread.js';

/** What holdSyncs gives a test: the syncs started so far, held until released. */
export interface HeldSyncs {
  /** Resolves once `n` syncs have started. */
  started: (n: number) => Promise<void>;
  release: () => void;
  /** Every file synced so far must be this database's -wal: syncing another file proves nothing. */
  expectWalOnly: () => void;
  /** Releases the held syncs and holds no more: so a failed test's close does not wait forever. */
  stop: () => void;
}

/**
 * Holds every WAL sync until released, logging when each starts and ends into `events`. The syncs run
 * on the WAL sync thread (storage/wal-sync-thread.ts), whose `sync` is held here; `onPool` holds the
 * thread pool's instead (FileHandle's datasync, of any file), which syncs where no such thread runs.
 */
export async function holdSyncs(dataDir: string, events: string[] = [], onPool = false): Promise<HeldSyncs> {
  const gates: Array<() => void> = [];
  let started = 0;
  let holding = true;
  /** The file each sync was of, from its descriptor (Linux /proc). */
  const files: string[] = [];
  const held = async (n: number, sync: () => Promise<void> | null, fd: () => number | null) => {
    events.push(`sync ${n} starts`);
    if (holding) await new Promise<void>((resolve) => gates.push(resolve));
    await sync();
    const descriptor = fd();
    files.push(descriptor === null ? '(none)' : readlinkSync(`/proc/self/fd/${descriptor}`));
    events.push(`sync ${n} ends`);
  };
  if (onPool) {
    // FileHandle is not exported: its prototype is taken from an open handle.
    const probe = await open(path.join(dataDir, DATABASE_FILE), 'r');
    const proto = Object.getPrototypeOf(probe) as { datasync(): Promise<void> };
    await probe.close();
    const original = proto.datasync;
    vi.spyOn(WalSyncThread.prototype, 'usable', 'get').mockReturnValue(false);
    vi.spyOn(proto, 'datasync').mockImplementation(function (this: { fd: number }) {
      return held(++started, () => original.call(this), () => this.fd);
    });
  } else {
    const original = WalSyncThread.prototype.sync;
    vi.spyOn(WalSyncThread.prototype, 'sync').mockImplementation(function (this: WalSyncThread) {
      // Held: the loop does not wait for it (a wait of 0), as for a sync that outlasts the wait.
      return held(++started, () => original.call(this, 0), () => this.fd);
    });
  }
  return {
    started: (n: number) => vi.waitFor(() => expect(started).toBeGreaterThanOrEqual(n)),
    release: () => gates.splice(0).forEach((g) => g()),
    expectWalOnly: () => {
      expect(files.length).toBeGreaterThan(0);
      expect(new Set(files)).toEqual(new Set([realpathSync(path.join(dataDir, `${DATABASE_FILE}-wal`))]));
    },
    stop: () => {
      holding = false;
      gates.splice(0).forEach((g) => g());
    },
  };
}
