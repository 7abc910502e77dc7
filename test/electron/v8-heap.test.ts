// Every launcher of the server passes V8's heap flags (main/host/v8-heap.ts): heap sizes can only be
// set on a process's command line, so a launcher that forgets them brings back the back-to-back full
// GCs that made a photo push 2.7x slower (bench/sync-push.bench.mjs).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hasServerNodeFlags, SERVER_NODE_FLAGS } from '../../main/host/v8-heap.js';

const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;

/** The node arguments in front of `entry` in an npm script's last `node ... entry` command. */
function nodeArgsBefore(script: string, entry: string): string[] {
  const command = script.split('&&').map((c) => c.trim()).find((c) => c.startsWith('node ') && c.includes(entry));
  if (!command) throw new Error(`no "node ... ${entry}" in ${script}`);
  const words = command.split(/\s+/);
  return words.slice(1, words.indexOf(entry));
}

describe('V8 heap flags of the server processes', () => {
  it('npm run serve and npm start run node with them', () => {
    expect(hasServerNodeFlags(nodeArgsBefore(scripts.serve, 'dist/main/cli/serve.js'))).toBe(true);
    expect(hasServerNodeFlags(nodeArgsBefore(scripts.start, 'dist/main/cli/start.js'))).toBe(true);
  });

  it('the desktop app forks its server process with them', () => {
    const main = readFileSync('main/electron/main.ts', 'utf8');
    expect(main).toMatch(/utilityProcess\.fork\([^)]*execArgv: \[\.\.\.SERVER_NODE_FLAGS\]/);
  });

  it('node accepts them on the command line (not in NODE_OPTIONS, which is why launchers pass them)', () => {
    const ok = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, '-e', 'process.stdout.write(JSON.stringify(process.execArgv))'], { encoding: 'utf8' });
    expect(ok.status).toBe(0);
    expect(hasServerNodeFlags(JSON.parse(ok.stdout) as string[])).toBe(true);
    const refused = spawnSync(process.execPath, ['-e', '0'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: SERVER_NODE_FLAGS.join(' ') } });
    expect(refused.status).not.toBe(0);
    expect(hasServerNodeFlags([])).toBe(false);
  });
});
