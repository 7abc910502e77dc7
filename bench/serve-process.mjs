// The benches' server: the built `serve` CLI in its own process (so a load generator or browser in the
// bench's process does not share its event loop), on a free port, with an API key.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { SERVER_NODE_FLAGS } from '../dist/main/host/v8-heap.js';

/**
 * Starts `serve` on dataDir; resolves with the child process and its base URL once it listens.
 * `args` adds to the command line (`--role central --database ...`), `env` to the environment,
 * `nodeArgs` to node's own (`--cpu-prof`); V8's heap flags are those `npm run serve` uses (main/host/v8-heap.ts).
 */
export async function spawnServe(dataDir, key, args = [], env = {}, nodeArgs = []) {
  const server = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeArgs, 'dist/main/cli/serve.js', '--port', '0', '--data-dir', dataDir, '--api-key', key, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  if (process.env.BENCH_SERVE_STDOUT_DIR) server.stdout.pipe(createWriteStream(`${process.env.BENCH_SERVE_STDOUT_DIR}/${server.pid}.log`));
  const url = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (c) => {
      out += c;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1].replace(/\/+$/, ''));
    });
    server.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
  return { server, url };
}
