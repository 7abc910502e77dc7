// The -wal file's fdatasync on a thread of its own, which the event loop may wait for briefly.
//
// Synced on libuv's thread pool (a FileHandle's datasync), a commit's sync ends in well under a
// millisecond, but its end is only seen at the event loop's next poll: a write was answered a whole
// turn after its commit, a turn in which the loop serves every other connection's request first
// (~9 ms under 50 connections; docs/api.md, issue 40's seventh pass). Synced here, the loop waits for
// the sync on a shared word (Atomics.wait) for at most a budget: a sync that ends within it answers
// its writes in the turn they committed; a slower one (a busy disk) is waited for without blocking,
// as before, so a stalled disk never holds the loop longer than the budget.
//
// The thread is a script evaluated from a string, not a module file, so it runs the same from the
// TypeScript sources (tests) and from the build (recognition/model-files.ts does the same).
import { Worker } from 'node:worker_threads';

/**
 * Shared words: the round the loop asked for, the round the thread finished, the last round that
 * failed, the -wal's descriptor, and the round the loop waits for without blocking (told by a message).
 */
const ASKED = 0;
const DONE = 1;
const FAILED = 2;
const FD = 3;
const TELL = 4;
const STOP = -1;

const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const words = new Int32Array(workerData.words);
let fd = -1;
let done = 0;
for (;;) {
  Atomics.wait(words, ${ASKED}, done);
  const asked = Atomics.load(words, ${ASKED});
  if (asked === ${STOP}) break;
  try {
    // Opened once and kept: SQLite deletes the -wal only when the last connection closes.
    if (fd < 0) Atomics.store(words, ${FD}, (fd = fs.openSync(workerData.file, 'r+')));
    fs.fdatasyncSync(fd);
  } catch {
    Atomics.store(words, ${FAILED}, asked);
  }
  done = asked;
  Atomics.store(words, ${DONE}, asked);
  Atomics.notify(words, ${DONE});
  // Stored before TELL is read, as the loop stores TELL before it reads DONE: one of the two sees the other.
  if (Atomics.load(words, ${TELL}) === asked) parentPort.postMessage(asked);
}
if (fd >= 0) fs.closeSync(fd);
`;

export class WalSyncThread {
  private readonly words = new Int32Array(new SharedArrayBuffer(5 * Int32Array.BYTES_PER_ELEMENT));
  private readonly worker: Worker;
  private asked = 0;
  private broken: Error | null = null;
  /** The round waited for without blocking: settled by the thread's message, or rejected if it dies. */
  private waiting: { round: number; resolve: () => void; reject: (error: Error) => void } | null = null;

  constructor(private readonly file: string) {
    this.words[FD] = -1;
    this.worker = new Worker(THREAD, { eval: true, workerData: { file, words: this.words.buffer } });
    // Blocked in Atomics.wait between syncs: it must not keep the process alive.
    this.worker.unref();
    const die = (error: Error) => {
      this.broken ??= error;
      this.settle(this.waiting?.round ?? 0, this.broken);
    };
    this.worker.on('message', (round: number) => this.settle(round));
    this.worker.on('error', die);
    this.worker.on('exit', () => die(new Error('the WAL sync thread ended')));
  }

  /** False once the thread has died: the caller syncs another way. */
  get usable(): boolean {
    return !this.broken;
  }

  /** The -wal file's descriptor on the thread, once it has synced (the same process's descriptor table). */
  get fd(): number | null {
    const fd = Atomics.load(this.words, FD);
    return fd >= 0 ? fd : null;
  }

  /**
   * Syncs the -wal file, one round at a time (the caller's rounds are sequential). Waits on this thread
   * for at most `waitMs`: null when the sync ended within it, else a promise of its end. Throws (or
   * rejects) when it failed: nothing of it is known durable.
   */
  sync(waitMs: number): Promise<void> | null {
    if (this.broken) throw this.broken;
    const round = ++this.asked;
    Atomics.store(this.words, ASKED, round);
    Atomics.notify(this.words, ASKED);
    if (waitMs > 0) Atomics.wait(this.words, DONE, round - 1, waitMs);
    if (Atomics.load(this.words, DONE) === round) return this.outcome(round);
    Atomics.store(this.words, TELL, round);
    // Ended between the two: no message may come (and one that does is for no one waiting).
    if (Atomics.load(this.words, DONE) === round) return this.outcome(round);
    return new Promise<void>((resolve, reject) => {
      this.waiting = { round, resolve, reject };
      // Waiting on the thread's message keeps the process alive, as a pending fs call would.
      this.worker.ref();
    });
  }

  private settle(round: number, error?: Error): void {
    const waiting = this.waiting;
    if (!waiting || waiting.round !== round) return;
    this.waiting = null;
    this.worker.unref();
    if (error) return waiting.reject(error);
    try {
      this.outcome(round);
      waiting.resolve();
    } catch (failed) {
      waiting.reject(failed as Error);
    }
  }

  private outcome(round: number): null {
    if (Atomics.load(this.words, FAILED) === round) throw new Error(`${this.file}: fdatasync failed`);
    return null;
  }

  /** Ends the thread once its sync in progress is done (the caller waits for its rounds first). */
  async close(): Promise<void> {
    if (this.broken) return;
    this.broken = new Error('the WAL sync thread is closed');
    const exited = new Promise((resolve) => this.worker.once('exit', resolve));
    // Waited for: the process must not end before (an unreferenced thread's exit keeps nothing alive).
    this.worker.ref();
    Atomics.store(this.words, ASKED, STOP);
    Atomics.notify(this.words, ASKED);
    await exited;
  }
}
