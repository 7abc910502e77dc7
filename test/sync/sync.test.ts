// Sync end to end, as real processes: a central on a throw-away PostgreSQL and laptop
// servers on SQLite, all started from the build. Offline work drains when the central comes back;
// a fault proxy and kill -9 lose and duplicate nothing; master data flows down; a supervisor reviews
// and acknowledges an auditor's visit; refusals (revoked, clock, protocol, foreign ids) are plain.
// Randomised with a seed printed on failure (SYNC_SEED=N replays a run).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_KEY,
  FaultProxy,
  PhotoProxy,
  PgCluster,
  PushWatch,
  CENTRAL_TABLES,
  DEVICE_TABLES,
  api,
  digest,
  freePort,
  pgRows,
  rng,
  sqliteRows,
  startServe,
  stopServe,
  until,
  type ServerProcess,
} from './harness.js';
import { DATA } from '../recognition/fixtures.js';

const SEED = Number(process.env.SYNC_SEED ?? Date.now() % 1_000_000);
const random = rng(SEED);
const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];

interface Laptop {
  name: string;
  dir: string;
  key: string;
  deviceId: string;
  server?: ServerProcess;
}

describe(`sync with a central on PostgreSQL (seed ${SEED})`, () => {
  const cluster = new PgCluster();
  const dirs: string[] = [];
  let centralDir: string;
  let centralPort: number;
  let central: ServerProcess | undefined;
  let centralUrl: string;
  const laptops: Record<'a' | 'b' | 's', Laptop> = {} as never;
  let jpeg: Buffer;
  // Real shelf photos (SKU-110K evaluation photos, ~1 MB each) for the visits' scenes.
  const shelfPhotos = ['test_1079.jpg', 'test_1094.jpg', 'test_1175.jpg'].map((f) => readFileSync(path.join(DATA, 'shelf-photos', f)));

  const startCentral = async () => {
    central = await startServe(['--role', 'central', '--database', cluster.url, '--data-dir', centralDir, '--port', String(centralPort)], { SHELF_AUDIT_SYNC_PULL_PAGE: '7' });
    return central;
  };
  const startLaptop = async (l: Laptop, centralAt = centralUrl) => {
    l.server = await startServe(['--data-dir', l.dir, '--port', '0', '--central', centralAt, '--device-key', l.key]);
    return l.server;
  };
  const status = async (l: Laptop) => (await api(l.server!.url, 'GET', '/api/app/v1/sync/status/')).body;
  const drained = (l: Laptop) =>
    until(`${l.name} to drain`, async () => {
      const s = (await api(l.server!.url, 'POST', '/api/app/v1/sync/run/')).body;
      return s.state === 'idle' && s.pending_records === 0 && s.pending_photos === 0 && s;
    }, 90_000);

  /** A few records of an auditor's day: visits, a real shelf photo recognised, a recognition error, an OOS reason. */
  const workOffline = async (l: Laptop, visits: number) => {
    const base = l.server!.url;
    const sceneIds: string[] = [];
    for (let i = 0; i < visits; i++) {
      const v = await api(base, 'POST', '/api/v1.5/visits/', { shop: `shop-${l.name}-${i}`, agent: `agent-${l.name}`, started_date: new Date().toISOString() });
      expect(v.status, JSON.stringify(v.body)).toBe(201);
      if (random() < 0.5) {
        const form = new FormData();
        form.append('datafile', new Blob([new Uint8Array(pick(shelfPhotos))], { type: 'image/jpeg' }), 'p.jpg');
        const up = await (await fetch(`${base}/api/v1.5/uploads/`, { method: 'POST', headers: { authorization: `Token ${ADMIN_KEY}` }, body: form })).json();
        const r = await api(base, 'POST', '/api/v1.5/recognize/', { images: [up.id], visit: v.body.id, report_types: ['FACING_COUNT'], metadata: { agent_id: `agent-${l.name}`, agent_name: l.name } });
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        sceneIds.push(r.body.scene);
      }
      if (random() < 0.3) await api(base, 'PATCH', `/api/v1.5/visits/${v.body.id}/`, { shop_name: `renamed ${i}` });
    }
    for (const scene of sceneIds) {
      const kind = pick(['recognition_error', 'oos_reason']);
      const m = await api(base, 'POST', `/api/v1.5/${kind}/`, { sku_gid: 'sku-cocacola-can', scene, message: `seen by ${l.name}` });
      expect(m.status, JSON.stringify(m.body)).toBe(201);
    }
  };

  /** Recognition finishes on the laptop before its reports are compared. */
  const reportsSettled = (l: Laptop) =>
    until(`${l.name}'s reports`, async () => {
      const rows = [...sqliteRows(l.dir, 'recognition_jobs').values()].map((r) => JSON.parse(r) as Array<[string, unknown]>);
      return rows.every((r) => ['done', 'failed'].includes(String(Object.fromEntries(r).status)));
    }, 120_000);

  /**
   * Every synced table (sync/registry.ts): every device-owned row of the laptops is on the central,
   * identical, and nothing else is; every laptop holds exactly the central's master data.
   */
  const expectExact = async (...ls: Laptop[]) => {
    expect(DEVICE_TABLES.map((t) => t.table)).toEqual(expect.arrayContaining(['visits', 'scenes', 'reports', 'scene_annotations', 'annotation_corrections']));
    for (const { table, local } of DEVICE_TABLES) {
      const union = new Map<string, string>();
      for (const l of ls) for (const [k, v] of sqliteRows(l.dir, table, local)) union.set(k, v);
      const centralRows = await pgRows(cluster.url, table, local);
      const missing = [...union.keys()].filter((k) => !centralRows.has(k));
      expect(missing, `${table} missing on the central`).toEqual([]);
      expect(centralRows.size, `${table} count`).toBe(union.size);
      expect(digest(centralRows), `${table} digest`).toBe(digest(union));
    }
    for (const { table, local } of CENTRAL_TABLES) {
      const centralRows = await pgRows(cluster.url, table, local);
      for (const l of ls) {
        const rows = sqliteRows(l.dir, table, local);
        expect([...centralRows.keys()].filter((k) => !rows.has(k)), `${table} missing on ${l.name}`).toEqual([]);
        expect(rows.size, `${table} count on ${l.name}`).toBe(centralRows.size);
        expect(digest(rows), `${table} digest on ${l.name}`).toBe(digest(centralRows));
      }
    }
    // Every photo a record names is on the central, and its bytes are the ones its name hashes.
    for (const row of (await pgRows(cluster.url, 'uploads')).values()) {
      const file = String(Object.fromEntries(JSON.parse(row) as Array<[string, unknown]>).file);
      const bytes = readFileSync(path.join(centralDir, 'uploads', file));
      expect(createHash('sha256').update(bytes).digest('hex'), file).toBe(path.basename(file).split('.')[0]);
    }
  };

  beforeAll(async () => {
    jpeg = await sharp({ create: { width: 160, height: 120, channels: 3, background: '#468' } }).jpeg().toBuffer();
    await cluster.start();
    centralDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-central-'));
    dirs.push(centralDir);
    centralPort = await freePort();
    centralUrl = `http://127.0.0.1:${centralPort}`;
    await startCentral();
    const sample = JSON.parse(readFileSync(new URL('../../samples/catalog.json', import.meta.url), 'utf8'));
    expect((await api(centralUrl, 'POST', '/api/app/v1/import/', sample)).status).toBe(200);
    for (const [name, role] of [['a', 'auditor'], ['b', 'auditor'], ['s', 'supervisor']] as const) {
      const d = await api(centralUrl, 'POST', '/api/app/v1/devices/', { name: `laptop ${name}`, role });
      expect(d.status).toBe(201);
      const dir = mkdtempSync(path.join(os.tmpdir(), `shelf-audit-laptop-${name}-`));
      dirs.push(dir);
      laptops[name] = { name, dir, key: d.body.key, deviceId: d.body.id };
    }
  }, 180_000);

  afterAll(async () => {
    for (const l of Object.values(laptops)) await stopServe(l.server, 'SIGKILL');
    await stopServe(central, 'SIGKILL');
    cluster.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const onFailure = (fn: () => Promise<void>) => async () => {
    try {
      await fn();
    } catch (error) {
      console.error(`sync test failed with seed ${SEED} (replay: SYNC_SEED=${SEED})`);
      throw error;
    }
  };

  it('device keys: listed without the key, stored hashed, enrolment needs the admin key', onFailure(async () => {
    const list = await api(centralUrl, 'GET', '/api/app/v1/devices/');
    expect(list.body.count).toBe(3);
    expect(JSON.stringify(list.body)).not.toContain(laptops.a.key);
    const hashes = await pgRows(cluster.url, 'devices');
    expect([...hashes.values()].join()).not.toContain(laptops.a.key);
    expect((await api(centralUrl, 'POST', '/api/app/v1/devices/', { name: 'x', role: 'auditor' }, laptops.a.key)).status).toBe(401);
    expect((await api(centralUrl, 'POST', '/api/app/v1/devices/', { name: 'x', role: 'boss' })).status).toBe(400);
  }));

  it('master data reaches the laptops; a laptop that syncs refuses to edit it', onFailure(async () => {
    await Promise.all([startLaptop(laptops.a), startLaptop(laptops.b)]);
    for (const l of [laptops.a, laptops.b]) {
      await until(`${l.name} to pull the catalog`, async () => (await api(l.server!.url, 'GET', '/api/v1.5/sku/')).body.count === 8);
      const md = await api(l.server!.url, 'GET', '/api/data/v1.0/md_import_status/');
      expect(md.body.last_import_datetime).toMatch(/^\d{4}-/);
      const refused = await api(l.server!.url, 'POST', '/api/v1.5/brands/', { id: 'local-brand', name: 'Local' });
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toMatch(/central/);
      const settings = await api(l.server!.url, 'GET', '/api/app/v1/sync/settings/');
      expect(settings.body).toEqual({ central_url: centralUrl, device_key_set: true });
      expect(JSON.stringify(settings.body)).not.toContain(l.key);
    }
    // An edit on the central reaches both laptops, and so does a reference image with its photo.
    const reference = await sharp({ create: { width: 120, height: 200, channels: 3, background: '#c22' } }).jpeg().toBuffer();
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(reference)], { type: 'image/jpeg' }), 'ref.jpg');
    const refRes = await fetch(`${centralUrl}/api/v1.5/sku/sku-cocacola-can/images/`, { method: 'POST', headers: { authorization: `Token ${ADMIN_KEY}` }, body: form });
    expect(refRes.status, await refRes.clone().text()).toBe(201);
    const refImage = await refRes.json();
    expect((await api(centralUrl, 'PATCH', '/api/v1.5/brands/brand-fanta/', { name: 'Fanta (new)' })).status).toBe(200);
    expect((await api(centralUrl, 'POST', '/api/v1.5/brands/', { id: 'brand-new', name: 'Brand new' })).status).toBe(201);
    // The price list is master data too (its API is the app's own): made on the central, checked for
    // overlaps there on PostgreSQL, pulled by the laptops, refused on them.
    const price = { id: 'price-cola', sku: 'sku-cocacola-can', price: '1.49', currency: 'EUR', shop: 'shop-1', valid_from: '2026-01-01' };
    expect((await api(centralUrl, 'POST', '/api/app/v1/prices/', price)).status).toBe(201);
    const overlap = await api(centralUrl, 'POST', '/api/app/v1/prices/', { ...price, id: 'price-cola-2', valid_from: '2026-06-01' });
    expect(overlap.status).toBe(400);
    expect(overlap.body.non_field_errors[0]).toMatch(/^Overlaps price "price-cola"/);
    for (const l of [laptops.a, laptops.b]) {
      await until(`${l.name} to see the edit`, async () => (await api(l.server!.url, 'GET', '/api/v1.5/brands/brand-new/')).status === 200);
      expect((await api(l.server!.url, 'GET', '/api/v1.5/brands/brand-fanta/')).body.name).toBe('Fanta (new)');
      await until(`${l.name} to pull the price`, async () => (await api(l.server!.url, 'GET', '/api/app/v1/prices/price-cola/')).status === 200);
      expect((await api(l.server!.url, 'GET', '/api/app/v1/prices/price-cola/')).body).toMatchObject({ sku: 'sku-cocacola-can', price: '1.49', shop: 'shop-1', valid_to: null });
      const refusedPrice = await api(l.server!.url, 'POST', '/api/app/v1/prices/', { ...price, id: 'local-price', shop: null });
      expect(refusedPrice.status).toBe(403);
      const image = await until(`${l.name} to have the reference image and its photo`, async () => {
        await api(l.server!.url, 'POST', '/api/app/v1/sync/run/');
        const listed = (await api(l.server!.url, 'GET', '/api/v1.5/sku/sku-cocacola-can/images/')).body;
        const found = (listed.results ?? listed).find((i: { id: string }) => i.id === refImage.id);
        if (!found) return false;
        const content = await fetch(found.url);
        return content.status === 200 && Buffer.from(await content.arrayBuffer());
      });
      expect(image.equals(reference)).toBe(true);
    }
    // The central answers in pages of whole transactions (SHELF_AUDIT_SYNC_PULL_PAGE=7 here): walking
    // the cursor from 0 gives every master record, each once per page it changed in, over several pages.
    const pulled = new Map<string, unknown>();
    let cursor = '0';
    let pages = 0;
    for (let more = true; more; pages++) {
      const res = await fetch(`${centralUrl}/api/app/v1/sync/pull/?cursor=${encodeURIComponent(cursor)}&client_time=${encodeURIComponent(new Date().toISOString())}`, {
        headers: { authorization: `Token ${laptops.b.key}`, 'x-sync-protocol': '1' },
      });
      const page = await res.json();
      expect(res.status, JSON.stringify(page)).toBe(200);
      for (const c of page.changes) if (c.entity === 'brand' || c.entity === 'sku') pulled.set(`${c.entity}:${c.id}`, c.row);
      ({ cursor, more } = page);
    }
    expect(pages).toBeGreaterThanOrEqual(2);
    const brands = await pgRows(cluster.url, 'brands');
    const skus = await pgRows(cluster.url, 'skus');
    expect([...pulled.keys()].sort()).toEqual([...[...brands.keys()].map((k) => `brand:${k}`), ...[...skus.keys()].map((k) => `sku:${k}`)].sort());
    expect((pulled.get('brand:brand-fanta') as { name: string }).name).toBe('Fanta (new)');
  }), 180_000);

  it('work done offline on two laptops drains when the central returns, exactly', onFailure(async () => {
    await stopServe(central);
    await Promise.all([workOffline(laptops.a, 4 + Math.floor(random() * 4)), workOffline(laptops.b, 4 + Math.floor(random() * 4))]);
    const offline = await until('the laptop to notice', async () => {
      const s = await status(laptops.a);
      return s.state === 'offline' && s;
    });
    expect(offline.pending_records).toBeGreaterThan(0);
    expect(offline.message).toMatch(/queued/);
    await Promise.all([reportsSettled(laptops.a), reportsSettled(laptops.b)]);
    await startCentral();
    await Promise.all([drained(laptops.a), drained(laptops.b)]);
    await expectExact(laptops.a, laptops.b);
    const s = await status(laptops.a);
    expect(s.last_success).toMatch(/^\d{4}-/);
    expect(s.rejections).toEqual([]);
  }), 300_000);

  it('a large photo follows its record by hash, pending on the central until it lands; a cut upload resumes', onFailure(async () => {
    const proxy = new PhotoProxy(centralUrl);
    const proxyUrl = await proxy.listen();
    const a = laptops.a.server!.url;
    try {
      expect((await api(a, 'PUT', '/api/app/v1/sync/settings/', { central_url: proxyUrl })).status).toBe(200);
      proxy.holdPhotos = true;
      const big = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#808080', noise: { type: 'gaussian' as const, mean: 128, sigma: 60 } } }).jpeg({ quality: 97 }).toBuffer();
      expect(big.length).toBeGreaterThan(8_000_000);
      const form = new FormData();
      form.append('datafile', new Blob([new Uint8Array(big)], { type: 'image/jpeg' }), 'big.jpg');
      const up = await (await fetch(`${a}/api/v1.5/uploads/`, { method: 'POST', headers: { authorization: `Token ${ADMIN_KEY}` }, body: form })).json();
      // The record goes up; its photo is held back by the proxy.
      await until('the record to reach the central', async () => {
        await api(a, 'POST', '/api/app/v1/sync/run/');
        return (await api(centralUrl, 'GET', `/api/v1.5/uploads/${up.id}/`)).status === 200;
      });
      const held = await status(laptops.a);
      expect(held.pending_photos).toBeGreaterThanOrEqual(1);
      expect(held.pending_photo_bytes).toBeGreaterThanOrEqual(big.length);
      const onCentral = (await api(centralUrl, 'GET', `/api/v1.5/uploads/${up.id}/`)).body;
      const pending = await fetch(onCentral.url);
      expect(pending.status).toBe(404);
      expect((await pending.json()).detail).toMatch(/pending sync/);

      // Released, and the upload is cut halfway: it resumes from where the central stopped.
      proxy.holdPhotos = false;
      proxy.cutNextPatchAfter = Math.floor(big.length / 2);
      await drained(laptops.a);
      expect(proxy.patches.length, JSON.stringify(proxy.patches)).toBeGreaterThanOrEqual(2);
      expect(proxy.patches[0]).toMatchObject({ offset: 0, bytes: Math.floor(big.length / 2) });
      expect(proxy.patches.at(-1)!.offset, JSON.stringify(proxy.patches)).toBeGreaterThan(0);
      expect(proxy.patchedBytes, JSON.stringify(proxy.patches)).toBeLessThan(big.length * 1.1);
      const landed = await fetch(onCentral.url);
      expect(landed.status).toBe(200);
      expect(Buffer.from(await landed.arrayBuffer()).equals(big)).toBe(true);
    } finally {
      await api(a, 'PUT', '/api/app/v1/sync/settings/', { central_url: centralUrl });
      await proxy.close();
    }
  }), 240_000);

  it('through a proxy that drops requests, resets bodies and loses answers: nothing lost, nothing twice', onFailure(async () => {
    const proxy = new FaultProxy(centralUrl, random);
    const proxyUrl = await proxy.listen();
    try {
      expect((await api(laptops.a.server!.url, 'PUT', '/api/app/v1/sync/settings/', { central_url: proxyUrl })).status).toBe(200);
      await workOffline(laptops.a, 12);
      await reportsSettled(laptops.a);
      await until('the queue to drain through faults', async () => {
        await api(laptops.a.server!.url, 'POST', '/api/app/v1/sync/run/');
        const s = await status(laptops.a);
        return s.state === 'idle' && s.pending_records === 0;
      }, 180_000);
      expect(proxy.counts.dropped, JSON.stringify(proxy.counts)).toBeGreaterThan(0);
      expect(proxy.counts.resetMidBody, JSON.stringify(proxy.counts)).toBeGreaterThan(0);
      expect(proxy.counts.lostAnswer, JSON.stringify(proxy.counts)).toBeGreaterThan(0);
      await expectExact(laptops.a, laptops.b);
    } finally {
      await api(laptops.a.server!.url, 'PUT', '/api/app/v1/sync/settings/', { central_url: centralUrl });
      await proxy.close();
    }
  }), 300_000);

  it('kill -9 of a laptop and of the central, each with a push in flight: still exact after restart', onFailure(async () => {
    // Through a proxy that records each device's pushes and keeps their answers back: each kill
    // happens while a push the central has received is unanswered, not at a moment between rounds.
    const watch = new PushWatch(centralUrl);
    const watchUrl = await watch.listen();
    const pointAt = async (l: Laptop, url: string) => expect((await api(l.server!.url, 'PUT', '/api/app/v1/sync/settings/', { central_url: url })).status).toBe(200);
    try {
      const { a, b } = laptops;
      // The laptop dies with its push at the central and the answer not yet back.
      watch.hold.add(b.key);
      let pushed = watch.nextPush(b.key);
      await pointAt(b, watchUrl);
      await workOffline(b, 15);
      await pushed;
      expect(watch.inFlight(b.key)).toBeGreaterThan(0);
      await stopServe(b.server, 'SIGKILL');
      watch.hold.delete(b.key);
      await startLaptop(b);
      await pointAt(b, centralUrl);
      // The central dies with laptop a's push received and unanswered.
      watch.hold.add(a.key);
      pushed = watch.nextPush(a.key);
      await pointAt(a, watchUrl);
      await workOffline(a, 15);
      await pushed;
      expect(watch.inFlight(a.key)).toBeGreaterThan(0);
      await stopServe(central, 'SIGKILL');
      watch.hold.delete(a.key);
      await pointAt(a, centralUrl);
      await startCentral();
      await Promise.all([reportsSettled(a), reportsSettled(b)]);
      await Promise.all([drained(a), drained(b)]);
      await expectExact(a, b);
    } finally {
      watch.hold.clear();
      for (const l of [laptops.a, laptops.b]) await api(l.server!.url, 'PUT', '/api/app/v1/sync/settings/', { central_url: centralUrl }).catch(() => undefined);
      await watch.close();
    }
  }), 300_000);

  it("a supervisor sees an auditor's visit and its acknowledgement reaches the central and the owner", onFailure(async () => {
    const s = laptops.s;
    await startLaptop(s);
    const visitId = [...sqliteRows(laptops.a.dir, 'visits').keys()][0];
    const seen = await until('the supervisor to have the visit', async () => {
      const r = await api(s.server!.url, 'GET', `/api/data/v1.0/visits/?cid=${visitId}`);
      return r.body.count === 1 && r.body.results[0];
    });
    expect((await api(s.server!.url, 'POST', `/api/data/v1.0/visits/${seen.id}/ack/`)).status).toBe(200);
    await drained(s);
    // All pages pulled: every scene of both auditors.
    expect(sqliteRows(s.dir, 'scenes').size).toBe(sqliteRows(laptops.a.dir, 'scenes').size + sqliteRows(laptops.b.dir, 'scenes').size);
    // Offline review needs the photos too: every upload the supervisor pulled has its file, intact.
    const pulled = [...sqliteRows(s.dir, 'uploads').values()].map((r) => String(Object.fromEntries(JSON.parse(r) as Array<[string, unknown]>).file));
    expect(pulled.length).toBeGreaterThan(0);
    for (const file of pulled) {
      const bytes = readFileSync(path.join(s.dir, 'uploads', file));
      expect(createHash('sha256').update(bytes).digest('hex'), file).toBe(path.basename(file).split('.')[0]);
    }
    await until('the central to have the acknowledgement', async () => {
      const row = JSON.parse((await pgRows(cluster.url, 'visits')).get(visitId)!) as Array<[string, unknown]>;
      return Object.fromEntries(row).is_new === 0;
    });
    await until('the owner to have the acknowledgement', async () => {
      await api(laptops.a.server!.url, 'POST', '/api/app/v1/sync/run/');
      const row = JSON.parse(sqliteRows(laptops.a.dir, 'visits').get(visitId)!) as Array<[string, unknown]>;
      return Object.fromEntries(row).is_new === 0;
    });
    // The supervisor's own pushes stay its own: nothing of a's was claimed by s.
    await expectExact(laptops.a, laptops.b);
  }), 240_000);

  it('two stateless central processes over one PostgreSQL serve the same laptops', onFailure(async () => {
    // Scaling out (docs/sync.md): a second process on the same database and the same data folder.
    const second = await startServe(['--role', 'central', '--database', cluster.url, '--data-dir', centralDir, '--port', '0']);
    try {
      expect((await api(laptops.a.server!.url, 'PUT', '/api/app/v1/sync/settings/', { central_url: second.url })).status).toBe(200);
      await workOffline(laptops.a, 3);
      await reportsSettled(laptops.a);
      await drained(laptops.a);
      // A master-data edit made through the first process reaches the laptop through the second.
      expect((await api(centralUrl, 'POST', '/api/v1.5/brands/', { id: `brand-scaled-${SEED}`, name: 'Scaled' })).status).toBe(201);
      await until('the laptop to pull through the second process', async () => {
        await api(laptops.a.server!.url, 'POST', '/api/app/v1/sync/run/');
        return (await api(laptops.a.server!.url, 'GET', `/api/v1.5/brands/brand-scaled-${SEED}/`)).status === 200;
      });
      // What the laptop pushed through the second process is readable through the first.
      const visits = (await api(centralUrl, 'GET', '/api/v1.5/visits/?limit=1000')).body;
      expect(visits.count).toBe((await pgRows(cluster.url, 'visits')).size);
      // The other laptop pulls the new brand too before both are compared with the central.
      await until('laptop b to pull the new brand', async () => {
        await api(laptops.b.server!.url, 'POST', '/api/app/v1/sync/run/');
        return (await api(laptops.b.server!.url, 'GET', `/api/v1.5/brands/brand-scaled-${SEED}/`)).status === 200;
      });
      await expectExact(laptops.a, laptops.b);
    } finally {
      await api(laptops.a.server!.url, 'PUT', '/api/app/v1/sync/settings/', { central_url: centralUrl });
      await stopServe(second);
    }
  }), 180_000);

  it('the same id from two devices is rejected, visibly on both sides, and the queue goes on', onFailure(async () => {
    const id = `clash-${SEED}`;
    expect((await api(laptops.a.server!.url, 'POST', '/api/v1.5/visits/', { id, shop: 'from a' })).status).toBe(201);
    await drained(laptops.a);
    expect((await api(laptops.b.server!.url, 'POST', '/api/v1.5/visits/', { id, shop: 'from b' })).status).toBe(201);
    expect((await api(laptops.b.server!.url, 'POST', '/api/v1.5/visits/', { id: `after-${SEED}`, shop: 'after the clash' })).status).toBe(201);
    const s = await drained(laptops.b);
    expect(s.rejections).toEqual([expect.objectContaining({ entity: 'visit', record_id: id, reason: expect.stringMatching(/another device/) })]);
    const centralVisit = JSON.parse((await pgRows(cluster.url, 'visits')).get(id)!) as Array<[string, unknown]>;
    expect(Object.fromEntries(centralVisit).shop).toBe('from a');
    expect((await pgRows(cluster.url, 'visits')).has(`after-${SEED}`)).toBe(true);
    const onCentral = (await api(centralUrl, 'GET', '/api/app/v1/sync/status/')).body;
    expect(onCentral.state).toBe('central');
    expect(onCentral.rejections).toEqual([expect.objectContaining({ record_id: id, device: laptops.b.deviceId })]);
  }), 120_000);

  it('a push written in bulk still refuses each bad change alone: a broken reference, a repeated id, a stranger', onFailure(async () => {
    const device = (await api(centralUrl, 'POST', '/api/app/v1/devices/', { name: `bulk ${SEED}`, role: 'auditor' })).body;
    const push = async (body: unknown) => {
      const res = await fetch(`${centralUrl}/api/app/v1/sync/push/`, {
        method: 'POST',
        headers: { authorization: `Token ${device.key}`, 'x-sync-protocol': '1', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return res.json();
    };
    const at = new Date().toISOString();
    const visit = (id: string, shop: string) => ({ id, shop, created_at: at, updated_at: at });
    const scene = (id: string, visitId: string) => ({ id, request_id: `req-${id}`, visit_id: visitId, images: '[]', options: '{}', created_at: at, updated_at: at });
    const v = (i: number) => `bulk-${SEED}-v${i}`;
    const s = (i: number) => `bulk-${SEED}-s${i}`;
    // Another laptop's visit, as a stranger would name it.
    const theirs = [...(await pgRows(cluster.url, 'visits')).keys()].find((id) => !id.startsWith('bulk-'))!;
    // Shuffled by the seed: where the bad changes fall in the runs must not matter.
    const bad = [
      { entity: 'scene', id: s(99), op: 'upsert', row: scene(s(99), `missing-${SEED}`) },
      { entity: 'visit', id: theirs, op: 'upsert', row: visit(theirs, 'not mine') },
    ];
    const good: { entity: string; id: string; op: string; row: Record<string, string> }[] = Array.from({ length: 30 }, (_, i) => ({ entity: 'visit', id: v(i), op: 'upsert', row: visit(v(i), `shop ${i}`) }));
    const scenes = Array.from({ length: 20 }, (_, i) => ({ entity: 'scene', id: s(i), op: 'upsert', row: scene(s(i), v(i)) }));
    const changes = [...good];
    changes.push({ entity: 'visit', id: v(3), op: 'upsert', row: visit(v(3), 'shop 3, again') });
    const mixed = [...scenes, ...bad].sort(() => random() - 0.5);
    changes.push(...mixed);
    const numbered = changes.map((c, i) => ({ ...c, n: i + 1 }));
    const first = await push({ client_time: at, last: numbered.length, changes: numbered });
    expect(first.applied).toBe(numbered.length - 2);
    expect(first.rejections.map((r: { record_id: string; reason: string }) => [r.record_id, r.reason]).sort()).toEqual(
      [
        [s(99), expect.stringMatching(/broken reference/)],
        [theirs, expect.stringMatching(/another device/)],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    const visits = await pgRows(cluster.url, 'visits');
    const scenesOnCentral = await pgRows(cluster.url, 'scenes');
    expect(Object.fromEntries(JSON.parse(visits.get(v(3))!)).shop).toBe('shop 3, again');
    expect(Object.fromEntries(JSON.parse(visits.get(theirs)!)).shop).not.toBe('not mine');
    expect(scenes.every((c) => scenesOnCentral.has(c.id))).toBe(true);
    expect(scenesOnCentral.has(s(99))).toBe(false);
    // The device's own records again, changed: applied over what it pushed, once.
    const again = good.map((c, i) => ({ ...c, row: { ...c.row, shop: `shop ${i}, edited` }, n: numbered.length + i + 1 }));
    const second = await push({ client_time: at, last: numbered.length + again.length, changes: again });
    expect(second).toMatchObject({ applied: 30, rejections: [] });
    const replay = await push({ client_time: at, last: numbered.length + again.length, changes: again });
    expect(replay).toMatchObject({ applied: 0, last_change: numbered.length + again.length });
    expect(Object.fromEntries(JSON.parse((await pgRows(cluster.url, 'visits')).get(v(29))!)).shop).toBe('shop 29, edited');
    expect((await api(centralUrl, 'DELETE', `/api/app/v1/devices/${device.id}/`)).status).toBe(200);
  }), 120_000);

  it("detector, embedder and price-tag models installed on the central reach the laptops, checksum verified", onFailure(async () => {
    const cli = path.join(import.meta.dirname, '../../dist/main/cli/cli.js');
    const detector = path.join(import.meta.dirname, '../../models/shelf-detector.onnx');
    const installed = spawnSync(process.execPath, [cli, 'models', 'install', detector, '--version', 'central detector v2', '--data-dir', centralDir], { encoding: 'utf8' });
    expect(installed.status, installed.stderr).toBe(0);
    const embedder = path.join(import.meta.dirname, '../../models/product-embedder.onnx');
    const embedderInstalled = spawnSync(process.execPath, [cli, 'models', 'install', embedder, '--kind', 'embedder', '--version', 'central embedder v2', '--data-dir', centralDir], { encoding: 'utf8' });
    expect(embedderInstalled.status, embedderInstalled.stderr).toBe(0);
    const tagModel = path.join(import.meta.dirname, '../../models/price-tag-detector.onnx');
    const tagsInstalled = spawnSync(process.execPath, [cli, 'models', 'install', tagModel, '--kind', 'tags', '--version', 'central tags v2', '--data-dir', centralDir], { encoding: 'utf8' });
    expect(tagsInstalled.status, tagsInstalled.stderr).toBe(0);
    const offered = await (await fetch(`${centralUrl}/api/app/v1/sync/models/`, { headers: { authorization: `Token ${laptops.a.key}`, 'x-sync-protocol': '1' } })).json();
    expect(offered.detector).toMatchObject({ version: 'central detector v2', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(offered.embedder).toMatchObject({ version: 'central embedder v2' });
    expect(offered.tags).toMatchObject({ version: 'central tags v2' });
    for (const l of [laptops.a, laptops.b]) {
      const info = await until(`${l.name} to take the model`, async () => {
        await api(l.server!.url, 'POST', '/api/app/v1/sync/run/');
        const i = (await api(l.server!.url, 'GET', '/api/app/v1/info/')).body;
        return /^shelf-detector-[0-9a-f]{16} sha256:/.test(i.model_version) && /^price-tag-detector-[0-9a-f]{16} sha256:/.test(i.tag_model_version) && i;
      });
      expect(info.model_version).toMatch(/sha256:/);
      const listed = spawnSync(process.execPath, [cli, 'models', 'list', '--data-dir', l.dir], { encoding: 'utf8' });
      expect(listed.stdout).toMatch(/detector: current: central detector v2/);
      expect(listed.stdout).toMatch(/embedder: current: central embedder v2/);
      expect(listed.stdout).toMatch(/tags: current: central tags v2/);
    }
  }), 120_000);

  it('the photo endpoints refuse bytes that do not match their hash, bad keys, strangers and auditors', onFailure(async () => {
    const device = { authorization: `Token ${laptops.a.key}`, 'x-sync-protocol': '1' };
    const bytes = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#a52' } }).jpeg().toBuffer();
    const claimed = createHash('sha256').update('other bytes').digest('hex');
    const meta = (sha: string) => `sha256 ${Buffer.from(sha).toString('base64')},ext ${Buffer.from('jpg').toString('base64')}`;
    const tus = { ...device, 'tus-resumable': '1.0.0' };
    const created = await fetch(`${centralUrl}/api/app/v1/sync/photos/files`, { method: 'POST', headers: { ...tus, 'upload-length': String(bytes.length), 'upload-metadata': meta(claimed) } });
    expect(created.status).toBe(201);
    const location = new URL(created.headers.get('location')!, centralUrl).href;
    const wrong = await fetch(location, { method: 'PATCH', headers: { ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, body: new Uint8Array(bytes) });
    expect(wrong.status).toBe(422);
    expect((await wrong.json()).detail).toMatch(/not stored/);
    const key = `${claimed.slice(0, 2)}/${claimed}.jpg`;
    const ask = (files: unknown, headers: Record<string, string> = device) =>
      fetch(`${centralUrl}/api/app/v1/sync/photos/missing/`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ files }) });
    expect((await (await ask([key])).json()).missing).toEqual([key]);
    const badKey = await ask(['../../etc/passwd']);
    expect(badKey.status).toBe(400);
    expect(await badKey.json()).toHaveProperty('files');
    expect((await ask([key], { authorization: 'Token sd_nobody', 'x-sync-protocol': '1' })).status).toBe(401);
    const noMeta = await fetch(`${centralUrl}/api/app/v1/sync/photos/files`, { method: 'POST', headers: { ...tus, 'upload-length': '10' } });
    expect(noMeta.status).toBe(400);
    expect((await noMeta.json()).detail).toMatch(/sha256/);
    const stranger = await fetch(`${centralUrl}/api/app/v1/sync/photos/files`, { method: 'POST', headers: { 'tus-resumable': '1.0.0', 'upload-length': '10', 'x-sync-protocol': '1' } });
    expect(stranger.status).toBe(401);
    const auditor = await fetch(`${centralUrl}/api/app/v1/sync/photos/content/${claimed}.jpg`, { headers: device });
    expect(auditor.status).toBe(403);
  }), 60_000);

  it('refuses a revoked device, a skewed clock, an older protocol and a hostile push, and says so', onFailure(async () => {
    const push = (key: string, body: unknown, protocol = '1') =>
      fetch(`${centralUrl}/api/app/v1/sync/push/`, { method: 'POST', headers: { authorization: `Token ${key}`, 'x-sync-protocol': protocol, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const fine = { client_time: new Date().toISOString(), last: 0, changes: [] };
    const skewed = await push(laptops.b.key, { ...fine, client_time: new Date(Date.now() + 3 * 3600_000).toISOString() });
    expect(skewed.status).toBe(409);
    expect((await skewed.json()).detail).toMatch(/clock is 180 minutes ahead/);
    const old = await push(laptops.b.key, fine, '0');
    expect(old.status).toBe(426);
    expect((await old.json()).detail).toMatch(/older than the central/);
    const hostile = await push(laptops.b.key, { ...fine, last: 10 ** 9, changes: [{ n: 10 ** 9, entity: 'brand', id: 'x', op: 'upsert', row: { id: 'x', name: 'mine' } }] });
    expect(hostile.status).toBe(400);
    const sneaky = await push(laptops.b.key, { ...fine, last: 10 ** 9, changes: [{ n: 10 ** 9, entity: 'visit', id: 'x', op: 'upsert', row: { id: 'x', 'drop table': 1 } }] });
    expect(sneaky.status).toBe(400);
    expect((await pgRows(cluster.url, 'brands')).has('x')).toBe(false);
    expect((await push('sd_wrong', fine)).status).toBe(401);

    const before = (await status(laptops.b)).pending_records;
    expect((await api(centralUrl, 'DELETE', `/api/app/v1/devices/${laptops.b.deviceId}/`)).status).toBe(200);
    const revoked = await push(laptops.b.key, fine);
    expect(revoked.status).toBe(401);
    expect((await revoked.json()).detail).toMatch(/revoked/);
    expect((await api(laptops.b.server!.url, 'POST', '/api/v1.5/visits/', { shop: 'after revocation' })).status).toBe(201);
    const told = await until('the laptop to say it is revoked', async () => {
      const st = (await api(laptops.b.server!.url, 'POST', '/api/app/v1/sync/run/')).body;
      return st.state === 'revoked' && st;
    });
    expect(told.message).toMatch(/revoked/);
    expect(told.pending_records).toBe(before + 1);
  }), 120_000);

  // Last: the supervisor's review adds reports and rows of its own, which expectExact(a, b) above
  // would count as strangers.
  it("a review saved offline on the supervisor's laptop reaches the central and the visit's owner", onFailure(async () => {
    const s = laptops.s;
    const a = laptops.a;
    const fields = (json: string) => Object.fromEntries(JSON.parse(json) as Array<[string, unknown]>);
    const form = new FormData();
    form.append('datafile', new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'p.jpg');
    const up = await (await fetch(`${a.server!.url}/api/v1.5/uploads/`, { method: 'POST', headers: { authorization: `Token ${ADMIN_KEY}` }, body: form })).json();
    const r = await api(a.server!.url, 'POST', '/api/v1.5/recognize/', { images: [up.id], report_types: ['FACING_COUNT'] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    await reportsSettled(a);
    await drained(a);
    await until('the supervisor to have the recognised scene', async () => {
      await api(s.server!.url, 'POST', '/api/app/v1/sync/run/');
      const row = sqliteRows(s.dir, 'scenes').get(r.body.scene);
      return row !== undefined && fields(row).analysis !== null;
    });

    await stopServe(central);
    const saved = await api(s.server!.url, 'PUT', `/api/v1.5/scenes/${r.body.scene}/annotations/`, {
      images: [{ image: up.id, version: 0, boxes: [{ x: 80, y: 60, w: 40, h: 50, sku_id: 'sku-cocacola-can' }] }],
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect((await status(s)).pending_records).toBeGreaterThan(0);
    await startCentral();
    await drained(s);

    const onCentral = [...(await pgRows(cluster.url, 'scene_annotations')).values()].map(fields).filter((x) => x.scene_id === r.body.scene);
    expect(onCentral).toHaveLength(1);
    expect(onCentral[0]).toMatchObject({ image_id: up.id, version: 1 });
    expect(JSON.parse(String(onCentral[0].boxes))).toEqual([expect.objectContaining({ sku_id: 'sku-cocacola-can', source: 'reviewer' })]);
    const audit = [...(await pgRows(cluster.url, 'annotation_corrections')).values()].map(fields).filter((x) => x.scene_id === r.body.scene);
    expect(audit).toHaveLength(1);
    expect(fields((await pgRows(cluster.url, 'visits')).get(r.body.visit)!).moderation).toBe('reviewed');
    // The central reads the scene with the review laid over it.
    const read = await api(centralUrl, 'GET', `/api/v1.5/scenes/${r.body.scene}/annotations/`);
    expect(read.body).toMatchObject({ reviewed: true, images: [{ version: 1, boxes: [{ sku_id: 'sku-cocacola-can' }] }] });
    await until("the visit's owner to see it reviewed", async () => {
      await api(a.server!.url, 'POST', '/api/app/v1/sync/run/');
      return fields(sqliteRows(a.dir, 'visits').get(r.body.visit)!).moderation === 'reviewed';
    });
    // Every synced table, the review's own included: the supervisor pulled every device's records,
    // so the owner and the supervisor together hold exactly what the central holds.
    await drained(a);
    await drained(s);
    expect(sqliteRows(s.dir, 'scene_annotations').size).toBeGreaterThan(0);
    expect(sqliteRows(s.dir, 'annotation_corrections').size).toBeGreaterThan(0);
    await expectExact(a, s);
  }), 240_000);
});
