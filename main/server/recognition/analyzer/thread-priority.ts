// Lowers the OS priority of the calling thread, so that under CPU contention the server's main thread
// (HTTP requests, database writes) gets a core before the analysis does. On Linux a thread's nice
// value is its own (setpriority(PRIO_PROCESS, 0) acts on the calling thread only), and threads it
// starts afterwards (onnxruntime's, identification workers) inherit it. On Windows and macOS the same
// call would lower the whole process, the main thread included, so there it does nothing.
import os from 'node:os';

/** Sets the calling thread's nice value (0-19); false where it is not done (not Linux, not allowed). */
export function lowerThreadPriority(nice: number): boolean {
  if (process.platform !== 'linux' || nice <= 0) return false;
  try {
    os.setPriority(0, Math.min(19, Math.round(nice)));
    return true;
  } catch {
    return false; // a sandbox that forbids it: the analysis runs at normal priority, as before
  }
}
