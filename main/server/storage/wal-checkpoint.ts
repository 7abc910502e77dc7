// WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the commit that
// crosses its threshold: copying the WAL into the database and syncing both, synchronously, in the
// server's one thread. Under write load that stalled every request in flight for hundreds of
// milliseconds (the POST rows' p99 of bench/api.bench.mjs). A worker thread with its own connection
// checkpoints instead, so a commit only appends to the WAL. Durability is the WAL's either way: a
// checkpoint only moves committed pages into the database file.
// Only available from the built JavaScript (a worker cannot load the TypeScript sources): without
// it, or if the worker fails, the connection checkpoints itself as SQLite does by default.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CheckpointWorkerData } from './checkpoint-worker.js';

const WORKER_URL = new URL('./checkpoint-worker.js', import.meta.url);
/** How often the worker checkpoints; the WAL grows by at most this long's commits in between. */
export const CHECKPOINT_INTERVAL_MS = 200;

export interface Checkpointer {
  stop(): Promise<void>;
}

/**
 * Starts checkpointing `file` from a worker thread; `fallback` is called if the worker fails (the
 * caller turns the connection's own checkpoints back on). Null where no worker can run.
 */
export function startCheckpointer(file: string, fallback: () => void): Checkpointer | null {
  if (!WORKER_URL.pathname.endsWith('.js') || !existsSync(fileURLToPath(WORKER_URL))) return null;
  const worker = new Worker(WORKER_URL, { workerData: { file, intervalMs: CHECKPOINT_INTERVAL_MS } satisfies CheckpointWorkerData });
  // It must not keep a process alive that is otherwise done.
  worker.unref();
  let stopping = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', () => undefined);
  void exited.then(() => {
    if (!stopping) fallback();
  });
  return {
    async stop() {
      stopping = true;
      // Held while it stops: an unref'd worker alone would let the process exit before it has.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
