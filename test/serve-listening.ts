// `serve` processes (dist/main/cli/serve.js) for tests that start them: the URL one prints once it
// listens, and a set of them, each in a data folder of its own, killed and removed together.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/** Serve processes started with one API key and environment; `closeAll()` kills what is left and removes their folders. */
export class ServeProcesses {
  private readonly dirs: string[] = [];
  private readonly children: ChildProcess[] = [];
  constructor(
    private readonly key: string,
    private readonly env: Record<string, string>,
  ) {}

  start(args: string[]): ChildProcess {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-serve-'));
    this.dirs.push(dir);
    const child = spawn(process.execPath, [path.join(root, 'dist/main/cli/serve.js'), '--host', '127.0.0.1', '--port', '0', '--data-dir', dir, '--api-key', this.key, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...this.env },
    });
    this.children.push(child);
    return child;
  }

  async closeAll(): Promise<void> {
    for (const c of this.children) {
      if (c.exitCode === null && c.signalCode === null) {
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGKILL');
        await exited;
      }
    }
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}

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
