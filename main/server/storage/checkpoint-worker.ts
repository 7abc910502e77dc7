// Worker thread of storage/wal-checkpoint.ts: its own connection to the database, checkpointing the
// WAL every CHECKPOINT_INTERVAL_MS until told to stop.
import SQLite from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

export interface CheckpointWorkerData {
  file: string;
  intervalMs: number;
}

const { file, intervalMs } = workerData as CheckpointWorkerData;
const db = new SQLite(file);
// PASSIVE never waits for readers or writers: frames still in use are left for the next round.
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const timer = setInterval(() => {
  try {
    checkpoint.get();
  } catch {
    // SQLITE_BUSY: another process's worker is checkpointing; the next round catches up.
  }
}, intervalMs);
parentPort!.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort!.close();
});
