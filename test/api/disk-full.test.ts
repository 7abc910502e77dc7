// A laptop's disk full (a day of photos taken offline): a write answers 507 in words, nothing of it is
// kept, reads go on, and writes work again once space is freed (storage/disk-full.ts, http/errors.ts).
// Before, a record's write answered 500 "A server error occurred." and a photo upload 400 "Malformed
// request.". A real serve process on a 16 MB tmpfs: it mounts one, so it needs root, as the README's test
// command does (it installs system packages); without it the test fails, saying so.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, expect, it } from 'vitest';
import { ServeProcesses, listeningUrl } from '../serve-listening.js';

const mountPoint = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-full-'));
/** Why the tmpfs could not be mounted, or null once it is. */
const mountRefused = (() => {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mountPoint], { stdio: 'pipe' });
    return null;
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error).trim();
  }
})();
const KEY = 'disk-full-key-0123456789abcdefghijklmn';
// Photos by URL from a server on this machine (a photo written in one piece: domain/uploads.ts).
const processes = new ServeProcesses(KEY, { SHELF_AUDIT_ALLOW_PRIVATE_URLS: '1' });
afterAll(async () => {
  await processes.closeAll();
  if (mountRefused === null) execFileSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

it('answers 507 and keeps nothing while the disk is full, reads meanwhile, and writes again once space is freed', async () => {
  expect(mountRefused, 'a 16 MB tmpfs must be mounted for this test (run as root, as the README\'s test command does)').toBeNull();
  const dataDir = path.join(mountPoint, 'data');
  const child = processes.start(['--data-dir', dataDir]);
  const url = await listeningUrl(child);
  const headers = { authorization: `Token ${KEY}`, 'content-type': 'application/json' };
  const brand = (id: string) => fetch(`${url}/api/v1.5/brands/`, { method: 'POST', headers, body: JSON.stringify({ id, name: 'n'.repeat(250) }) });
  expect((await brand('before')).status).toBe(201);

  // Fill the disk.
  const filler = path.join(mountPoint, 'filler');
  expect(() => writeFileSync(filler, Buffer.alloc(32 * 1024 * 1024))).toThrow(/ENOSPC/);
  // The database's last free pages take a few more records; then it is full.
  let saved = 1;
  let refused: Response | undefined;
  for (let i = 0; i < 2000 && !refused; i++) {
    const r = await brand(`b${i}-${'x'.repeat(200)}`);
    if (r.status === 201) saved++;
    else refused = r;
  }
  expect(refused?.status).toBe(507);
  expect(await refused!.json()).toEqual({ detail: 'The disk is full: nothing was saved. Free some space on this computer and try again.' });

  const photo = await sharp({ create: { width: 1200, height: 900, channels: 3, background: '#8a8' } }).jpeg().toBuffer();
  const form = new FormData();
  form.append('datafile', new Blob([photo], { type: 'image/jpeg' }), 'shelf.jpg');
  const upload = await fetch(`${url}/api/v1.5/uploads/`, { method: 'POST', headers: { authorization: `Token ${KEY}` }, body: form });
  expect(upload.status).toBe(507);
  // A photo fetched by URL, written in one piece: 507 too.
  const big = await sharp({ create: { width: 2000, height: 1500, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).jpeg({ quality: 95 }).toBuffer();
  const source = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(big));
  await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
  const photoUrl = `http://127.0.0.1:${(source.address() as AddressInfo).port}/shelf.jpg`;
  try {
    const byUrl = await fetch(`${url}/api/v1.5/uploads/upload_by_url/`, { method: 'POST', headers, body: JSON.stringify({ url: photoUrl }) });
    expect(byUrl.status).toBe(507);
  } finally {
    source.close();
  }
  // No half-written photo is left behind.
  const uploads = path.join(dataDir, 'uploads');
  const files = (() => {
    try {
      return readdirSync(uploads, { recursive: true });
    } catch {
      return [];
    }
  })();
  expect(files.filter((f) => String(f).endsWith('.tmp'))).toEqual([]);

  // Reads go on, and show only what was saved.
  const list = await fetch(`${url}/api/v1.5/brands/?limit=1`, { headers });
  expect(list.status).toBe(200);
  expect((await list.json()).count).toBe(saved);

  rmSync(filler);
  expect((await brand('after')).status).toBe(201);
  const again = await fetch(`${url}/api/v1.5/uploads/`, { method: 'POST', headers: { authorization: `Token ${KEY}` }, body: form });
  expect(again.status).toBe(201);
  expect(child.exitCode).toBeNull();
}, 120_000);
