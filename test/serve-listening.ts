// The URL a `serve` process (dist/main/cli/serve.js) prints once it listens, for tests that start one.
import type { ChildProcess } from 'node:child_process';

/**
 * Resolves with the `listening on URL` line's URL; rejects if the process exits first or after `ms`,
 * with what it printed (stderr too, where piped) in the message.
 */
export function listeningUrl(child: ChildProcess, ms = 60_000): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    let printed = '';
    const timer = setTimeout(() => reject(new Error(`no listening line: ${printed}`)), ms);
    child.stderr?.on('data', (c) => (printed += c));
    child.stdout!.on('data', (c) => {
      out += c;
      printed += c;
      const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${printed}`));
    });
  });
}
