// A central of two processes over one PostgreSQL and one S3-compatible bucket, with no shared disk
// (each process has its own empty --data-dir), against a real server: Ceph's RADOS gateway on a
// one-node cluster (scripts/s3-server.mjs). Laptops upload through either process; a cut upload
// continues on the other one; photos and models are served from the bucket; the bucket away answers
// 503 with Retry-After and the laptop's queue drains once it is back; the migration of a data folder
// refuses a corrupted file and resumes; a photo one process received is read by the other through its
// local cache filled from the bucket (recognition, suggestions, quality, a learnt reference, the training
// export, serving), a panorama a job stitched is in the bucket, and a job waits while the bucket is away.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import sharp from 'sharp';
import { CreateBucketCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CephS3 } from '../../scripts/s3-server.mjs';
import { ADMIN_KEY, PgCluster, PhotoProxy, api, freePort, startServe, stopServe, until, type ServerProcess } from './harness.js';
import { blobKey, type BlobStore } from '../../main/server/storage/blob-store.js';
import { BucketUnavailableError, ObjectStore, S3BlobStore } from '../../main/server/storage/object-store.js';
import { objectStoreSettings } from '../../main/server/config/config.js';
import { CorruptPhotoError, localUploadFile } from '../../main/server/domain/upload-cache.js';
import { composeShelf } from '../recognition/fixtures.js';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/main/cli/cli.js');
const BUCKET = 'shelf-audit-photos';

interface Laptop {
  name: string;
  dir: string;
  key: string;
  server?: ServerProcess;
}

async function photo(seed: number, width = 1200, height = 900, quality = 90): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: seed % 255, g: (seed * 7) % 255, b: (seed * 13) % 255 }, noise: { type: 'gaussian', mean: 128, sigma: 50 } } })
    .jpeg({ quality })
    .toBuffer();
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('a central of two processes over PostgreSQL and an S3 bucket (Ceph RADOS gateway)', () => {
  const s3 = new CephS3();
  const cluster = new PgCluster();
  const dirs: string[] = [];
  const centrals: ServerProcess[] = [];
  const centralDirs: string[] = [];
  let client: S3Client;
  const laptops: Record<string, Laptop> = {};
  let supervisorKey = '';
  let env: Record<string, string>;

  const tmp = (prefix: string) => {
    const d = mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
  const startCentral = async (i: number, extra: Record<string, string> = {}) => {
    centrals[i] = await startServe(['--role', 'central', '--database', cluster.url, '--data-dir', centralDirs[i], '--port', String(await freePort())], { ...env, ...extra });
    return centrals[i];
  };
  const device = (key: string) => ({ authorization: `Token ${key}`, 'x-sync-protocol': '1' });
  const status = async (l: Laptop) => (await api(l.server!.url, 'GET', '/api/app/v1/sync/status/')).body;
  const drained = (l: Laptop, ms = 90_000) =>
    until(`${l.name} to drain`, async () => {
      const s = (await api(l.server!.url, 'POST', '/api/app/v1/sync/run/')).body;
      return s.state === 'idle' && s.pending_records === 0 && s.pending_photos === 0 && s;
    }, ms);
  const takePhoto = async (l: Laptop, bytes: Buffer) => {
    const form = new FormData();
    form.append('datafile', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), 'p.jpg');
    const res = await fetch(`${l.server!.url}/api/v1.5/uploads/`, { method: 'POST', headers: { authorization: `Token ${ADMIN_KEY}` }, body: form });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string };
  };
  const fileOf = (l: Laptop, id: string): string => {
    const db = new Database(path.join(l.dir, 'shelf-audit.sqlite'), { readonly: true });
    try {
      return (db.prepare('SELECT file FROM uploads WHERE id = ?').get(id) as { file: string }).file;
    } finally {
      db.close();
    }
  };
  const objectBytes = async (key: string): Promise<Buffer> => {
    const r = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return Buffer.from(await r.Body!.transformToByteArray());
  };
  const keysInBucket = async (): Promise<string[]> => {
    const r = await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    return (r.Contents ?? []).map((c) => c.Key!);
  };
  /** Nothing a laptop needs on a central process's own disk: no photo, no upload in progress, no model. */
  const centralDisksHoldNoPhotos = () => {
    for (const d of centralDirs) {
      for (const sub of ['uploads', 'sync-incoming', 'models']) {
        const p = path.join(d, sub);
        expect(existsSync(p) ? readdirSync(p, { recursive: true }) : [], `${p}`).toEqual([]);
      }
    }
  };

  beforeAll(async () => {
    await Promise.all([s3.start(), cluster.start()]);
    env = s3.env(BUCKET);
    client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
    await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    centralDirs.push(tmp('shelf-audit-central1-'), tmp('shelf-audit-central2-'));
    await startCentral(0);
    await startCentral(1);
    const sample = JSON.parse(readFileSync(path.join(root, 'samples', 'catalog.json'), 'utf8'));
    expect((await api(centrals[0].url, 'POST', '/api/app/v1/import/', sample)).status).toBe(200);
    for (const [name, role] of [['a', 'auditor'], ['b', 'auditor'], ['sup', 'supervisor']] as const) {
      const d = await api(centrals[1].url, 'POST', '/api/app/v1/devices/', { name: `laptop ${name}`, role });
      expect(d.status).toBe(201);
      if (role === 'supervisor') supervisorKey = d.body.key;
      else laptops[name] = { name, dir: tmp(`shelf-audit-laptop-${name}-`), key: d.body.key };
    }
    // Laptop a syncs with the first process, b with the second.
    laptops.a.server = await startServe(['--data-dir', laptops.a.dir, '--port', '0', '--central', centrals[0].url, '--device-key', laptops.a.key]);
    laptops.b.server = await startServe(['--data-dir', laptops.b.dir, '--port', '0', '--central', centrals[1].url, '--device-key', laptops.b.key]);
  }, 240_000);

  afterAll(async () => {
    for (const l of Object.values(laptops)) await stopServe(l.server, 'SIGKILL');
    for (const c of centrals) await stopServe(c, 'SIGKILL');
    client?.destroy();
    cluster.stop();
    s3.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('two laptops upload through two processes: every photo in the bucket, verified, none on a central disk; served by either process', async () => {
    const taken: Array<{ laptop: Laptop; id: string; bytes: Buffer }> = [];
    for (let i = 0; i < 4; i++) {
      for (const l of [laptops.a, laptops.b]) {
        const bytes = await photo(i * 2 + (l.name === 'a' ? 0 : 1));
        taken.push({ laptop: l, id: (await takePhoto(l, bytes)).id, bytes });
      }
    }
    await Promise.all([drained(laptops.a), drained(laptops.b)]);
    for (const t of taken) {
      const key = fileOf(t.laptop, t.id);
      expect(key).toBe(`${sha256(t.bytes).slice(0, 2)}/${sha256(t.bytes)}.jpg`);
      expect((await objectBytes(key)).equals(t.bytes), key).toBe(true);
      // Served by either process (streamed from the bucket), to a supervisor's device key only.
      for (const c of centrals) {
        const res = await fetch(`${c.url}/api/app/v1/sync/photos/content/${path.basename(key)}`, { headers: device(supervisorKey) });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('image/jpeg');
        expect(Buffer.from(await res.arrayBuffer()).equals(t.bytes)).toBe(true);
      }
      const auditor = await fetch(`${centrals[1].url}/api/app/v1/sync/photos/content/${path.basename(key)}`, { headers: device(laptops.a.key) });
      expect(auditor.status).toBe(403);
    }
    // The tus uploads' own objects are gone once filed: only photos remain.
    expect((await keysInBucket()).filter((k) => !/^[0-9a-f]{2}\//.test(k))).toEqual([]);
    const missing = await fetch(`${centrals[0].url}/api/app/v1/sync/photos/missing/`, {
      method: 'POST',
      headers: { ...device(laptops.b.key), 'content-type': 'application/json' },
      body: JSON.stringify({ files: taken.map((t) => fileOf(t.laptop, t.id)).concat([`aa/${'a'.repeat(64)}.jpg`]) }),
    });
    expect((await missing.json()).missing).toEqual([`aa/${'a'.repeat(64)}.jpg`]);
    centralDisksHoldNoPhotos();
  }, 180_000);

  it('an upload cut on one process continues on the other at the byte it reached (a balancer without affinity)', async () => {
    const a = laptops.a;
    // One address for the laptop, as behind a load balancer; the test decides which process answers.
    const balancer = new PhotoProxy(centrals[0].url);
    const balancerUrl = await balancer.listen();
    try {
      expect((await api(a.server!.url, 'PUT', '/api/app/v1/sync/settings/', { central_url: balancerUrl })).status).toBe(200);
      balancer.holdPhotos = true;
      // Larger than S3's 5 MiB minimum part: the first half is stored as a part of its own.
      const big = await photo(99, 4000, 3000, 97);
      expect(big.length).toBeGreaterThan(8_000_000);
      const up = await takePhoto(a, big);
      await until('the record to reach the central', async () => {
        await api(a.server!.url, 'POST', '/api/app/v1/sync/run/');
        return (await api(centrals[1].url, 'GET', `/api/v1.5/uploads/${up.id}/`)).status === 200;
      });
      const half = Math.floor(big.length / 2);
      balancer.holdPhotos = false;
      balancer.cutNextPatchAfter = half;
      balancer.holdAfterCut = true;
      await until('the cut', async () => balancer.patches.length > 0 && balancer.patches[0].bytes === half && balancer.holdPhotos);
      expect(balancer.patches[0].offset).toBe(0);
      // The first process stored the half; from now on the balancer sends everything to the second.
      balancer.target = centrals[1].url;
      const before = balancer.patches.length;
      balancer.holdPhotos = false;
      await drained(a);
      const after = balancer.patches.slice(before);
      expect(after.length, JSON.stringify(balancer.patches)).toBeGreaterThanOrEqual(1);
      expect(after[0].offset, JSON.stringify(balancer.patches)).toBe(half);
      expect(after.reduce((s, p) => s + p.bytes, 0)).toBe(big.length - half);
      const key = fileOf(a, up.id);
      expect((await objectBytes(key)).equals(big)).toBe(true);
      const served = await fetch(`${centrals[0].url}/api/app/v1/sync/photos/content/${path.basename(key)}`, { headers: device(supervisorKey) });
      expect(sha256(Buffer.from(await served.arrayBuffer()))).toBe(sha256(big));
    } finally {
      await api(a.server!.url, 'PUT', '/api/app/v1/sync/settings/', { central_url: centrals[0].url });
      await balancer.close();
    }
    centralDisksHoldNoPhotos();
  }, 180_000);

  it('a process killed mid-upload: the laptop resends what was lost, through the other process', async () => {
    const b = laptops.b;
    const proxy = new PhotoProxy(centrals[1].url);
    const proxyUrl = await proxy.listen();
    try {
      expect((await api(b.server!.url, 'PUT', '/api/app/v1/sync/settings/', { central_url: proxyUrl })).status).toBe(200);
      proxy.holdPhotos = true;
      const big = await photo(77, 4000, 3000, 97);
      const up = await takePhoto(b, big);
      await until('the record to reach the central', async () => {
        await api(b.server!.url, 'POST', '/api/app/v1/sync/run/');
        return (await api(centrals[0].url, 'GET', `/api/v1.5/uploads/${up.id}/`)).status === 200;
      });
      // The PATCH stalls halfway: the process that holds its lock is killed.
      proxy.holdPhotos = false;
      proxy.cutNextPatchAfter = Math.floor(big.length / 2);
      proxy.holdAfterCut = true;
      await until('half the photo sent', async () => proxy.patches.length > 0 && proxy.holdPhotos);
      await stopServe(centrals[1], 'SIGKILL');
      // The balancer sends the rest to the process still alive; the laptop resumes at what the bucket holds.
      proxy.target = centrals[0].url;
      const before = proxy.patches.length;
      proxy.holdPhotos = false;
      await drained(b);
      const after = proxy.patches.slice(before);
      expect(after.length).toBeGreaterThanOrEqual(1);
      expect(after[0].offset).toBeLessThanOrEqual(Math.floor(big.length / 2));
      expect((await objectBytes(fileOf(b, up.id))).equals(big)).toBe(true);
    } finally {
      await proxy.close();
      await api(b.server!.url, 'PUT', '/api/app/v1/sync/settings/', { central_url: centrals[0].url });
      await startCentral(1);
      await api(b.server!.url, 'PUT', '/api/app/v1/sync/settings/', { central_url: centrals[1].url });
    }
  }, 180_000);

  it('the bucket away: uploads and photo reads answer 503 with Retry-After; the laptop keeps its photo and sends it once the bucket is back', async () => {
    const a = laptops.a;
    // A process with a short bucket timeout, so a stalled gateway is noticed in seconds.
    const impatient = await startServe(['--role', 'central', '--database', cluster.url, '--data-dir', tmp('shelf-audit-central3-'), '--port', '0'], { ...env, SHELF_AUDIT_S3_TIMEOUT_MS: '1500' });
    try {
      const known = (await keysInBucket()).find((k) => /^[0-9a-f]{2}\//.test(k))!;
      s3.pause(true);
      try {
        const read = await fetch(`${impatient.url}/api/app/v1/sync/photos/content/${path.basename(known)}`, { headers: device(supervisorKey) });
        expect(read.status).toBe(503);
        expect(read.headers.get('retry-after')).toMatch(/^\d+$/);
        expect((await read.json()).detail).toMatch(/unreachable/);
        const bytes = await photo(4242, 300, 200);
        const meta = `sha256 ${Buffer.from(sha256(bytes)).toString('base64')},ext ${Buffer.from('jpg').toString('base64')}`;
        const create = await fetch(`${impatient.url}/api/app/v1/sync/photos/files`, {
          method: 'POST',
          headers: { ...device(a.key), 'tus-resumable': '1.0.0', 'upload-length': String(bytes.length), 'upload-metadata': meta },
        });
        expect(create.status).toBe(503);
        expect(create.headers.get('retry-after')).toMatch(/^\d+$/);
        // A laptop that syncs with it meanwhile: its record goes up, its photo stays queued.
        expect((await api(a.server!.url, 'PUT', '/api/app/v1/sync/settings/', { central_url: impatient.url })).status).toBe(200);
        const up = await takePhoto(a, bytes);
        await until('the record to reach the central', async () => {
          await api(a.server!.url, 'POST', '/api/app/v1/sync/run/');
          return (await api(impatient.url, 'GET', `/api/v1.5/uploads/${up.id}/`)).status === 200;
        });
        const s = await status(a);
        expect(s.pending_photos).toBeGreaterThanOrEqual(1);
        expect(s.last_error).toBeTruthy();
      } finally {
        s3.pause(false);
      }
      await drained(a);
      expect((await status(a)).pending_photos).toBe(0);
    } finally {
      await api(a.server!.url, 'PUT', '/api/app/v1/sync/settings/', { central_url: centrals[0].url });
      await stopServe(impatient);
    }
  }, 180_000);

  it('models installed on the central go to the bucket and reach a laptop through either process', async () => {
    const detector = path.join(root, 'models/shelf-detector.onnx');
    // Installed from an operator's machine: its own data folder, the bucket's settings.
    const adminDir = tmp('shelf-audit-admin-');
    const installed = spawnSync(process.execPath, [cli, 'models', 'install', detector, '--version', 'bucket detector v2', '--data-dir', adminDir], { encoding: 'utf8', env: { ...process.env, ...env } });
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stdout).toMatch(/published to the bucket/);
    const expected = sha256(readFileSync(detector));
    for (const c of centrals) {
      const offered = await until('the offer', async () => {
        const o = await (await fetch(`${c.url}/api/app/v1/sync/models/`, { headers: device(laptops.b.key) })).json();
        return o.detector?.version === 'bucket detector v2' && o;
      }, 15_000);
      expect(offered.detector.sha256).toBe(expected);
    }
    const b = laptops.b;
    const info = await until('laptop b to take the model', async () => {
      await api(b.server!.url, 'POST', '/api/app/v1/sync/run/');
      const i = (await api(b.server!.url, 'GET', '/api/app/v1/info/')).body;
      return /^shelf-detector-[0-9a-f]{16} sha256:/.test(i.model_version) && i;
    });
    expect(info.model_version).toContain(expected.slice(0, 16));
    const listed = spawnSync(process.execPath, [cli, 'models', 'list', '--data-dir', b.dir], { encoding: 'utf8' });
    expect(listed.stdout).toMatch(/detector: current: bucket detector v2/);
    await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `models/detector/${expected}.onnx` }));
    centralDisksHoldNoPhotos();
  }, 180_000);

  it("a photo uploaded through the central's own API (master data) goes to the bucket and any process serves it", async () => {
    const bytes = await photo(3131, 320, 240);
    const form = new FormData();
    form.append('datafile', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), 'ref.jpg');
    const res = await fetch(`${centrals[0].url}/api/v1.5/uploads/`, { method: 'POST', headers: { authorization: `Token ${ADMIN_KEY}` }, body: form });
    expect(res.status).toBe(201);
    const key = `${sha256(bytes).slice(0, 2)}/${sha256(bytes)}.jpg`;
    expect((await objectBytes(key)).equals(bytes)).toBe(true);
    // The other process has no copy on its disk: it serves the bucket's, even to an auditor (master data).
    const served = await fetch(`${centrals[1].url}/api/app/v1/sync/photos/content/${path.basename(key)}`, { headers: device(laptops.a.key) });
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
  }, 60_000);

  it('the migration moves a folder into the bucket, refuses and reports a corrupted file, resumes, and removes only when told', async () => {
    const dir = tmp('shelf-audit-old-central-');
    const photos: Array<{ key: string; bytes: Buffer }> = [];
    for (let i = 0; i < 5; i++) {
      const bytes = await photo(500 + i, 400, 300);
      const key = `${sha256(bytes).slice(0, 2)}/${sha256(bytes)}.jpg`;
      mkdirSync(path.join(dir, 'uploads', path.dirname(key)), { recursive: true });
      writeFileSync(path.join(dir, 'uploads', key), bytes);
      photos.push({ key, bytes });
    }
    // One file whose bytes no longer hash to its name (a bit flipped on disk).
    const corrupted = photos[2];
    const flipped = Buffer.from(corrupted.bytes);
    flipped[flipped.length >> 1] ^= 0xff;
    writeFileSync(path.join(dir, 'uploads', corrupted.key), flipped);
    const migrate = (...args: string[]) => spawnSync(process.execPath, [cli, 'bucket', 'migrate', '--data-dir', dir, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });

    const first = migrate();
    expect(first.status, first.stderr).toBe(1);
    const report = JSON.parse(first.stdout.slice(first.stdout.indexOf('{')));
    expect(report.stored).toBe(4);
    expect(report.refused).toEqual([{ file: `uploads/${corrupted.key}`, reason: expect.stringMatching(/corrupted, not uploaded/) }]);
    expect(first.stderr).toMatch(/1 file\(s\) refused/);
    for (const p of photos) {
      if (p === corrupted) {
        await expect(client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: p.key }))).rejects.toThrow();
        continue;
      }
      expect((await objectBytes(p.key)).equals(p.bytes)).toBe(true);
      // Left in place until told.
      expect(existsSync(path.join(dir, 'uploads', p.key))).toBe(true);
    }
    // A second run resumes: nothing is sent again.
    const second = migrate('--remove');
    const again = JSON.parse(second.stdout.slice(second.stdout.indexOf('{')));
    expect(again.stored).toBe(0);
    expect(again.present).toBe(4);
    expect(again.removed).toBe(4);
    expect(second.status).toBe(1);
    for (const p of photos) expect(existsSync(path.join(dir, 'uploads', p.key)), p.key).toBe(p === corrupted);
  }, 120_000);

  // Last: from here on the central processes' disks cache photos read through from the bucket.
  it('the read-through cache: a photo only in the bucket becomes a local file, checked against its name, fetched once however many ask', async () => {
    // This test process's own client, with the gateway's credentials (the SDK's chain reads them here).
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey });
    const objects = await ObjectStore.open(objectStoreSettings(env)!);
    const impatient = await ObjectStore.open({ ...objectStoreSettings(env)!, timeoutMs: 800 });
    try {
      const dir = tmp('shelf-audit-cache-');
      const bytes = await photo(6060, 200, 150);
      const key = blobKey(sha256(bytes), 'jpg');
      const local = path.join(dir, 'uploads', key);
      await objects.putBuffer(key, bytes);
      // No bucket (a laptop, a bucket-less central): the path, as before, nothing fetched.
      expect(await localUploadFile(dir, null, { file: key })).toBe(local);
      expect(existsSync(local)).toBe(false);

      const real = new S3BlobStore(objects);
      let reads = 0;
      const counted: BlobStore = { size: (k) => real.size(k), putFile: (k, f) => real.putFile(k, f), read: async (k) => (reads++, real.read(k)) };
      const paths = await Promise.all(Array.from({ length: 8 }, () => localUploadFile(dir, counted, { file: key })));
      expect(new Set(paths)).toEqual(new Set([local]));
      expect(reads).toBe(1);
      expect(readFileSync(local).equals(bytes)).toBe(true);
      // Held now: not asked of the bucket again; no temp file left beside it.
      expect(await localUploadFile(dir, counted, { file: key })).toBe(local);
      expect(reads).toBe(1);
      expect(readdirSync(path.dirname(local))).toEqual([path.basename(key)]);

      // Bytes under a key they do not hash to: refused, nothing cached.
      const other = await photo(6061, 200, 150);
      const lying = blobKey(sha256(other), 'jpg');
      await objects.putBuffer(lying, bytes);
      await expect(localUploadFile(dir, objects, { file: lying })).rejects.toThrow(CorruptPhotoError);
      expect(existsSync(path.join(dir, 'uploads', path.dirname(lying))) ? readdirSync(path.join(dir, 'uploads', path.dirname(lying))) : []).not.toContain(path.basename(lying));
      expect(readdirSync(path.join(dir, 'uploads'), { recursive: true }).filter((f) => String(f).endsWith('.part'))).toEqual([]);

      // Not in the bucket either: the path, with no file (the photo has not reached the central yet).
      const absent = blobKey(sha256(Buffer.from('never uploaded')), 'png');
      expect(await localUploadFile(dir, objects, { file: absent })).toBe(path.join(dir, 'uploads', absent));
      expect(existsSync(path.join(dir, 'uploads', absent))).toBe(false);

      // The bucket away: a clear error (answered 503 with Retry-After by the routes), nothing cached.
      const elsewhere = tmp('shelf-audit-cache-away-');
      s3.pause(true);
      try {
        await expect(localUploadFile(elsewhere, impatient, { file: key })).rejects.toThrow(BucketUnavailableError);
      } finally {
        s3.pause(false);
      }
      expect(existsSync(path.join(elsewhere, 'uploads', key))).toBe(false);
    } finally {
      objects.destroy();
      impatient.destroy();
    }
  }, 60_000);

  it('a photo received by one process is read by the other: quality, recognition, suggestions, a learnt reference and the photo itself', async () => {
    const a = laptops.a;
    const bytes = await photo(7070, 1000, 750);
    const up = await takePhoto(a, bytes);
    await drained(a);
    const key = fileOf(a, up.id);
    // Received through tus by the first process: in the bucket only, on no central disk.
    expect((await objectBytes(key)).equals(bytes)).toBe(true);
    for (const d of centralDirs) expect(existsSync(path.join(d, 'uploads', key))).toBe(false);
    const [c0, c1] = centrals.map((c) => c.url);

    // The second process measures its quality as the scene is created, and either process recognises it.
    const rec = await api(c1, 'POST', '/api/v1.5/recognize/', { images: [up.id], report_types: ['FACING_COUNT'] });
    expect(rec.status, JSON.stringify(rec.body)).toBe(201);
    expect(rec.body.quality[0].issues.map((i: { code: string }) => i.code), JSON.stringify(rec.body.quality)).not.toContain('not_checked');
    const report = await until('the report', async () => {
      const r = (await api(c1, 'GET', `/api/v1.5/reports/${rec.body.reports.FACING_COUNT}/`)).body;
      return r.status !== 'NOT_READY' && r;
    }, 120_000);
    expect(report.status, JSON.stringify(report)).toBe('READY');

    // A reviewer's box on each process: cut from the photo, identified.
    const box = { image: up.id, x: 500, y: 375, w: 240, h: 300 };
    for (const c of [c1, c0]) {
      const asked = await api(c, 'POST', `/api/v1.5/scenes/${rec.body.scene}/suggestions/`, box);
      expect(asked.status, JSON.stringify(asked.body)).toBe(200);
      expect(Array.isArray(asked.body.suggestions)).toBe(true);
    }

    // A correction saved on the second process teaches a reference, described from the photo.
    const ann = (await api(c1, 'GET', `/api/v1.5/scenes/${rec.body.scene}/annotations/`)).body;
    const kept = ann.images[0].boxes.map(({ id, x, y, w, h, sku_id }: Record<string, unknown>) => ({ id, x, y, w, h, sku_id }));
    const saved = await api(c1, 'PUT', `/api/v1.5/scenes/${rec.body.scene}/annotations/`, {
      images: [{ image: up.id, version: ann.images[0].version, boxes: [...kept, { x: 500, y: 375, w: 240, h: 300, sku_id: 'sku-cocacola-pet' }] }],
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const learnt = async () => {
      const db = new pg.Client({ connectionString: cluster.url });
      await db.connect();
      try {
        return (await db.query("SELECT id, descriptor FROM sku_images WHERE upload_id = $1 AND source = 'review'", [up.id])).rows;
      } finally {
        await db.end();
      }
    };
    expect(await learnt()).toHaveLength(1);
    // The catalog is loaded (and the reference described) by the next suggestion, on the first process.
    expect((await api(c0, 'POST', `/api/v1.5/scenes/${rec.body.scene}/suggestions/`, box)).status).toBe(200);
    const [reference] = await learnt();
    expect(reference.descriptor, 'the learnt reference is described').not.toBeNull();
    const listed = await api(c0, 'GET', '/api/v1.5/sku/sku-cocacola-pet/images/');
    expect(listed.body.results.map((r: { upload: string }) => r.upload)).toContain(up.id);

    // The photo itself, through its capability URL, from either process.
    const item = (await api(c0, 'GET', `/api/v1.5/uploads/${up.id}/`)).body;
    const capability = new URL(item.url).pathname;
    for (const c of [c0, c1]) {
      const res = await fetch(`${c}${capability}`);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    }
    // Each process now holds the photo in its own cache, exactly the bytes, and no temp file.
    for (const d of centralDirs) {
      expect(readFileSync(path.join(d, 'uploads', key)).equals(bytes)).toBe(true);
      expect(readdirSync(path.join(d, 'uploads'), { recursive: true }).filter((f) => String(f).endsWith('.part'))).toEqual([]);
    }

    // The training export from an operator's machine (an empty data folder, the bucket's settings): the
    // reviewed photo comes from the bucket.
    const exportDir = tmp('shelf-audit-export-');
    const exported = spawnSync(process.execPath, [cli, 'export-training', '--out', path.join(exportDir, 'out'), '--database', cluster.url, '--data-dir', path.join(exportDir, 'data')], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
    expect(exported.status, exported.stderr).toBe(0);
    const summary = JSON.parse(exported.stdout.trim().split('\n').at(-1)!);
    expect(summary.images, exported.stdout).toBeGreaterThanOrEqual(1);
    const coco = JSON.parse(readFileSync(path.join(exportDir, 'out', 'annotations.json'), 'utf8'));
    expect(coco.images.map((i: { upload: string }) => i.upload)).toContain(up.id);
    expect(readFileSync(path.join(exportDir, 'data', 'uploads', key)).equals(bytes)).toBe(true);
  }, 240_000);

  it('a panorama stitched by a job on one process is in the bucket and served by both', async () => {
    const shelf = await composeShelf([[['fanta_pet', 4], ['sprite_pet', 3], ['cocacola_pet', 3]]]);
    const cw = Math.round(shelf.width * 0.62);
    const ids: string[] = [];
    for (const left of [0, shelf.width - cw]) {
      const form = new FormData();
      const part = await sharp(shelf.jpeg).extract({ left, top: 0, width: cw, height: shelf.height }).jpeg({ quality: 92 }).toBuffer();
      form.append('datafile', new Blob([new Uint8Array(part)], { type: 'image/jpeg' }), 'part.jpg');
      const res = await fetch(`${centrals[0].url}/api/v1.5/uploads/`, { method: 'POST', headers: { authorization: `Token ${ADMIN_KEY}` }, body: form });
      expect(res.status).toBe(201);
      ids.push((await res.json()).id);
    }
    const rec = await api(centrals[1].url, 'POST', '/api/v1.5/recognize/', { images: ids, report_types: ['PANORAMA'] });
    expect(rec.status, JSON.stringify(rec.body)).toBe(201);
    const report = await until('the panorama', async () => {
      const r = (await api(centrals[1].url, 'GET', `/api/v1.5/reports/${rec.body.reports.PANORAMA}/`)).body;
      return r.status !== 'NOT_READY' && r;
    }, 120_000);
    expect(report.status, JSON.stringify(report)).toBe('READY');
    const pano = (await api(centrals[0].url, 'GET', `/api/v1.5/uploads/${report.json.upload}/`)).body;
    const served: Buffer[] = [];
    for (const c of centrals) {
      const res = await fetch(`${c.url}${new URL(pano.url).pathname}`);
      expect(res.status, c.url).toBe(200);
      served.push(Buffer.from(await res.arrayBuffer()));
    }
    expect(served[0].equals(served[1])).toBe(true);
    expect((await objectBytes(blobKey(sha256(served[0]), 'jpg'))).equals(served[0])).toBe(true);
  }, 240_000);

  it('the bucket away while a photo is read through: the photo answers 503, its quality is not checked, and recognition waits for the bucket instead of failing', async () => {
    const a = laptops.a;
    const bytes = await photo(8080, 800, 600);
    const up = await takePhoto(a, bytes);
    await drained(a);
    const key = fileOf(a, up.id);
    // Both processes with a short bucket timeout, so the outage is noticed in seconds.
    for (const i of [0, 1]) {
      await stopServe(centrals[i]);
      await startCentral(i, { SHELF_AUDIT_S3_TIMEOUT_MS: '1000' });
    }
    for (const [l, i] of [[laptops.a, 0], [laptops.b, 1]] as const) {
      expect((await api(l.server!.url, 'PUT', '/api/app/v1/sync/settings/', { central_url: centrals[i].url })).status).toBe(200);
    }
    const [c0, c1] = centrals.map((c) => c.url);
    const capability = new URL((await api(c0, 'GET', `/api/v1.5/uploads/${up.id}/`)).body.url).pathname;
    let reportId = '';
    s3.pause(true);
    try {
      const read = await fetch(`${c1}${capability}`);
      expect(read.status).toBe(503);
      expect(read.headers.get('retry-after')).toMatch(/^\d+$/);
      const rec = await api(c1, 'POST', '/api/v1.5/recognize/', { images: [up.id], report_types: ['FACING_COUNT'] });
      expect(rec.status, JSON.stringify(rec.body)).toBe(201);
      expect(rec.body.quality[0].issues[0]).toMatchObject({ code: 'not_checked', value: expect.stringMatching(/unreachable/) });
      reportId = rec.body.reports.FACING_COUNT;
      // Longer than a job's three attempts take with the bucket away (each about two request timeouts).
      await new Promise((r) => setTimeout(r, 12_000));
      expect((await api(c1, 'GET', `/api/v1.5/reports/${reportId}/`)).body.status).toBe('NOT_READY');
    } finally {
      s3.pause(false);
    }
    const report = await until('the report', async () => {
      const r = (await api(c0, 'GET', `/api/v1.5/reports/${reportId}/`)).body;
      return r.status !== 'NOT_READY' && r;
    }, 120_000);
    expect(report.status, JSON.stringify(report)).toBe('READY');
    expect((await fetch(`${c1}${capability}`)).status).toBe(200);
    for (const d of centralDirs) {
      expect(readdirSync(path.join(d, 'uploads'), { recursive: true }).filter((f) => String(f).endsWith('.part'))).toEqual([]);
    }
    expect(centralDirs.some((d) => existsSync(path.join(d, 'uploads', key)))).toBe(true);
  }, 240_000);
});
