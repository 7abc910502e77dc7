// CPU time of the benches' processes, read from Linux's /proc: what a server (and its workers, or
// PostgreSQL's backends) used, steadier than req/s on a shared machine.
import { readFileSync } from 'node:fs';

/** A process and its descendants (the server processes of `--workers`, gunicorn's, PostgreSQL's backends). */
export function processTree(pid) {
  let children = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // gone, or not Linux
  }
  return [pid, ...children.flatMap(processTree)];
}

/** One process's user and system CPU seconds so far; throws when it is gone. */
export function cpu(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime, in clock ticks (100 a second on Linux).
  return [Number(fields[11]) / 100, Number(fields[12]) / 100];
}

/** CPU seconds used by a process's whole tree (null where /proc cannot be read). */
export function treeCpuSeconds(pid) {
  try {
    let total = 0;
    for (const p of processTree(pid)) total += cpu(p).reduce((a, b) => a + b, 0);
    return total;
  } catch {
    return null;
  }
}
