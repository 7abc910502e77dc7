// `npm start` where Electron cannot run: it must say so in one line, serve the web UI with a fresh key
// on the data folder it is given, and shut down cleanly on SIGTERM, revoking that key.
import Database from 'better-sqlite3';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const START = 'dist/main/cli/start.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

let dataDir: string;
let child: ChildProcess;
let output = '';

function waitForLine(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} in:\n${output}`)), timeoutMs);
    const check = () => {
      const m = output.match(pattern);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(m);
      }
    };
    child.stdout!.on('data', check);
    check();
  });
}

/** True when dist/ is missing the entry or older than any main/ source (a standalone run after edits). */
function buildIsStale(): boolean {
  if (!existsSync(START)) return true;
  const built = statSync(START).mtimeMs;
  return readdirSync('main', { recursive: true, withFileTypes: true }).some(
    (e) => e.isFile() && e.name.endsWith('.ts') && statSync(path.join(e.parentPath, e.name)).mtimeMs > built,
  );
}

beforeAll(() => {
  // `npm test` builds first; compile main/ here only when the build is missing or stale.
  if (buildIsStale()) {
    const r = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
    // Type errors elsewhere in main/ still emit; only a missing entry point stops this test.
    if (r.status !== 0 && !existsSync(START)) throw new Error('could not build main/');
  }
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-start-'));
});
afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start without Electron', () => {
  it('runs the headless server, answers /health, and exits cleanly on SIGTERM', async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, SHELF_AUDIT_DATA_DIR: dataDir, SHELF_AUDIT_PORT: String(port) };
    // On Linux take the display away, so the real "cannot start" check decides; elsewhere a desktop
    // always exists, so ask for headless mode.
    delete env.DISPLAY;
    delete env.WAYLAND_DISPLAY;
    if (process.platform === 'win32' || process.platform === 'darwin') env.SHELF_AUDIT_HEADLESS = '1';
    child = spawn(process.execPath, [START], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));

    const [, url, token] = await waitForLine(/Shelf Audit web UI: (http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)/);
    const lines = output.trim().split('\n');
    expect(lines[0]).toMatch(/^Electron cannot start here \(.+\): running the headless server with the web UI instead\.$/);
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(output).toContain(`Data folder: ${dataDir}`);

    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    // The printed key opens the API; no key does not.
    expect((await fetch(`${url}/api/v1.5/brands/`)).status).toBe(401);
    expect((await fetch(`${url}/api/v1.5/brands/`, { headers: { authorization: `Token ${token}` } })).status).toBe(200);

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    // Clean shutdown revoked the session key and left the data folder stamped with its layout.
    const db = new Database(path.join(dataDir, 'shelf-audit.sqlite'), { readonly: true });
    const keys = db.prepare("SELECT name, revoked_at FROM api_keys WHERE name LIKE 'npm start web UI session%'").all() as {
      name: string;
      revoked_at: string | null;
    }[];
    db.close();
    expect(keys).toHaveLength(1);
    expect(keys[0].revoked_at).not.toBeNull();
    expect(existsSync(path.join(dataDir, 'data-layout.json'))).toBe(true);
  });
});

describe('what npm start loads', () => {
  it('never imports electron, directly or through its modules (plain Node must run it)', () => {
    const seen = new Set<string>();
    const offenders: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      for (const [, spec] of text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm)) {
        if (/^electron(-log)?(\/|$)/.test(spec)) offenders.push(`${file} imports ${spec}`);
        if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
      }
    };
    visit(path.resolve('main/cli/start.ts'));
    expect(seen.size).toBeGreaterThan(5);
    expect([...seen].some((f) => f.endsWith(path.join('host', 'data-directory.ts')))).toBe(true);
    expect(offenders).toEqual([]);
  });
});
