// `npm run cli -- devices create|list|revoke` on the central's data: the key is printed once and
// works on a running central (a pull with it succeeds), the list names the device without its key,
// a revoked device is refused by that same running central, and bad usage exits 2 with the usage.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { listeningUrl } from '../serve-listening.js';

const root = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-devices-cli-'));
const cli = (...args: string[]) => spawnSync(process.execPath, [path.join(root, 'dist/main/cli/cli.js'), ...args, '--data-dir', dir], { encoding: 'utf8' });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('creates a device whose key a running central accepts, lists it without the key, revokes it', async () => {
  const created = cli('devices', 'create', '--name', 'Laptop 7', '--role', 'supervisor');
  expect(created.status, created.stderr).toBe(0);
  const id = /^id:\s+(\S+)$/m.exec(created.stdout)?.[1];
  const key = /^key:\s+(\S+)$/m.exec(created.stdout)?.[1];
  expect(id).toBeTruthy();
  expect(key).toMatch(/^sd_/);

  // Stored hashed: the key appears in no file of the data directory.
  for (const f of readdirSync(dir, { recursive: true }) as string[]) {
    try {
      expect(readFileSync(path.join(dir, f)).includes(key!), f).toBe(false);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EISDIR') throw error;
    }
  }

  const listed = cli('devices', 'list');
  expect(listed.status, listed.stderr).toBe(0);
  const line = listed.stdout.split('\n').find((l) => l.startsWith(id!))!;
  expect(line.split('\t')).toEqual([id, `${key!.slice(0, 10)}…`, 'Laptop 7', 'supervisor', expect.stringMatching(/^\d{4}-/), 'active', 'last change 0']);
  expect(listed.stdout).not.toContain(key);

  const central = spawn(process.execPath, [path.join(root, 'dist/main/cli/serve.js'), '--host', '127.0.0.1', '--port', '0', '--role', 'central', '--data-dir', dir, '--api-key', 'devices-cli-admin-key-0123456789abcdef'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((r) => central.once('exit', r));
  try {
    const url = await listeningUrl(central);
    const pull = () =>
      fetch(`${url}/api/app/v1/sync/pull/?cursor=0&client_time=${encodeURIComponent(new Date().toISOString())}`, { headers: { authorization: `Token ${key}`, 'x-sync-protocol': '1' } });
    expect((await pull()).status).toBe(200);

    const revoked = cli('devices', 'revoke', id!);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(`revoked ${id} (Laptop 7)`);
    // The running central, which verified the key before, refuses it from now on.
    const refused = await pull();
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/revoked/);
    expect(cli('devices', 'list').stdout.split('\n').find((l) => l.startsWith(id!))).toMatch(/\trevoked \d{4}-/);
  } finally {
    central.kill('SIGTERM');
    await exited;
  }

  // Bad usage: exit 2 with the usage (each CLI start costs a second or two: two cases).
  for (const args of [['devices', 'create', '--name', 'x'], ['devices', 'revoke']]) {
    const r = cli(...args);
    expect(r.status, args.join(' ')).toBe(2);
    expect(r.stderr, args.join(' ')).toMatch(/usage:/);
  }
}, 60_000);
