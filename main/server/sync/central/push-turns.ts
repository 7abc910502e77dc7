// The central's turns for devices' pushes (routes/app/sync.ts): how many are applied at once, and how
// they give way while the office reads (docs/sync.md, docs/api.md "Mixed load").
/**
 * Pushes applied at once by one process; the others wait their turn. Fifty devices pushing at once
 * kept the event loop and the pool busy with their round trips (93% busy in a profile), and the
 * office's page reads queued behind them (docs/api.md, "Mixed load"). One at a time (issue 40, the
 * office's reads during 50 devices' pushes on 2 cores): the readers' p99 0.97x to 2.7x of theirs
 * without pushes and 514-582 reads/s, against 3.8x with 2 and 5.5x to 6.6x (73-79 reads/s) with 4,
 * for 1,026-1,462 pushed visits/s against 1,510-1,777 with 4: a push is a device's background sync,
 * which waits, and the office's screens are not.
 */
export const PUSHES_AT_ONCE = 1;

/**
 * While the office reads, pushes take at most this share of the time: after a push that took t, the
 * next one starts t x (1 / share - 1) later (at most PUSH_WAIT_MAX_MS). One push at a time still
 * took 0.4-0.6 of a core of PostgreSQL's and retired the visits' caches 14 times a second, and the
 * readers' p99 rose 2.9-8.7x (docs/api.md, fifth pass). A push is a device's background sync: its ack
 * comes later, after its commit as before; with no reads, pushes go at full speed.
 */
export const PUSH_SHARE_WHILE_READING = 0.25;
/** A read seen this recently (ms) counts as the office reading now. */
export const READ_WINDOW_MS = 1000;
/** The longest a push is held back for the reads (ms), whatever the last push took. */
export const PUSH_WAIT_MAX_MS = 1000;

export interface PushPacing {
  /** The share of the time pushes may take while reads go on (0 < share <= 1). */
  share: number;
  /** A read seen this recently (ms) counts as reading now. */
  readWindowMs: number;
  /** The longest a push is held back (ms). */
  maxWaitMs: number;
}

/**
 * The turn every central process shares (shared-push-turn.ts): a process's turn also waits for it, and
 * lets it go `afterMs` later (the pacing's wait while the office reads), so the pacing holds for all.
 */
export interface SharedTurn {
  take(): Promise<void>;
  give(afterMs?: number): void;
}

/** Takes a turn: resolves with its release once one is free. `readSeen` notes a read arriving now. */
export interface PushTurns {
  (): Promise<() => void>;
  readSeen(): void;
}

/** Requests that count as the office reading: API reads other than the devices' own sync. */
export function isOfficeRead(method: string, url: string): boolean {
  return (method === 'GET' || method === 'HEAD') && url.startsWith('/api/') && !url.startsWith('/api/app/v1/sync/');
}

/**
 * Turns among `slots`, given in arrival order; with `pacing`, a turn is also held back while reads go
 * on, so that pushes take at most `pacing.share` of the time. With `shared` (one slot: a session's
 * advisory lock is re-entrant), a turn taken while reads go on also holds the central's shared turn,
 * so the processes' pushes take their share together, not each its own; a shared turn that cannot be
 * taken (the database connection broke) leaves the push to its process's turn alone.
 */
export function pushTurns(slots: number, pacing?: PushPacing, shared?: SharedTurn): PushTurns {
  if (shared && slots !== 1) throw new RangeError('a shared push turn needs one slot per process');
  let free = slots;
  const waiting: Array<(release: () => void) => void> = [];
  let lastRead = -Infinity;
  /** Before this (performance.now()), no turn starts while reads go on. */
  let notBefore = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  /** The office read within the window before `t`. */
  const reading = (t: number) => pacing !== undefined && t - lastRead <= pacing.readWindowMs;
  const grant = () => {
    while (free > 0 && waiting.length > 0) {
      const t = performance.now();
      if (reading(t) && t < notBefore) {
        if (!timer) {
          timer = setTimeout(() => {
            timer = undefined;
            grant();
          }, Math.ceil(notBefore - t));
          // The waiting pushes' own connections keep a serving process alive; the pacing alone must not
          // hold one that is closing.
          timer.unref();
        }
        return;
      }
      free--;
      const give = waiting.shift()!;
      // The shared turn only while the office reads: otherwise each process pushes at full speed.
      if (!shared || !reading(t)) {
        give(releaseOf(t, false));
        continue;
      }
      shared.take().then(
        () => give(releaseOf(performance.now(), true)),
        () => give(releaseOf(performance.now(), false)),
      );
    }
  };
  /** The release of a turn started at `started`; `holding`: it holds the shared turn too. */
  const releaseOf = (started: number, holding: boolean) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const end = performance.now();
      const wait = pacing ? Math.min(pacing.maxWaitMs, ((end - started) * (1 - pacing.share)) / pacing.share) : 0;
      if (pacing) notBefore = end + wait;
      if (holding) shared!.give(reading(end) ? wait : 0);
      free++;
      grant();
    };
  };
  const turn = (() =>
    new Promise<() => void>((resolve) => {
      waiting.push(resolve);
      grant();
    })) as PushTurns;
  turn.readSeen = () => {
    lastRead = performance.now();
  };
  return turn;
}
