// The benches' server: the built `serve` CLI in its own process (so a load generator or browser in the
// bench's process does not share its event loop), on a free port, with an API key.
import { spawn } from 'node:child_process';

/**
 * Starts `serve` on dataDir; resolves with the child process and its base URL once it listens.
 * `args` adds to the command line (`--role central --database ...`), `env` to the environment,
 * `nodeArgs` to node's own (`--cpu-prof`).
 */
export async function spawnServe(dataDir, key, args = [], env = {}, nodeArgs = []) {
  const server = spawn(process.execPath, [...nodeArgs, 'dist/main/cli/serve.js', '--port', '0', '--data-dir', dataDir, '--api-key', key, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
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
