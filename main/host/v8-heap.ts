// V8's heap settings for every process that runs the server (`npm run serve`, `npm start`, the
// desktop app's server process, the benches). Heap sizes can only be set when a process starts (Node
// refuses this flag in NODE_OPTIONS), so each launcher passes them on its command line.
//
// Why: a server streaming photos allocates Buffers fast while its live JS heap stays small (~40 MB).
// V8 then sets the old generation's limit so close above the live size that the headroom is less than
// the young generation, and starts incremental marking again right after each full GC: 640 full GCs
// in one 1,500-photo push, against 3 with this floor (bench/sync-push.bench.mjs, 300 visits x 5
// photos: the central's CPU per photo 40 -> 15 ms, the laptop's about 18 -> 5 ms). A floor of 128 MB
// only delays the first full GC; the live heap and the RSS stay where they were.
export const SERVER_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=128'];

/** Whether this process was started with the flags. */
export function hasServerNodeFlags(execArgv: readonly string[] = process.execArgv): boolean {
  return SERVER_NODE_FLAGS.every((flag) => execArgv.includes(flag));
}
