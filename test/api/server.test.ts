// The server as a process and across restarts: the headless serve CLI from the build, restart keeping
// every record, the web UI with its CSP, the app endpoints (keys, info), the recognize rate limit.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../main/server/http/content-security-policy.js';
import { createApiKey } from '../../main/server/domain/api-keys.js';
import { startServer } from '../../main/server/server.js';
import { SERVE_WARM_UP_BEFORE_LISTEN } from '../../main/server/config/config.js';
import { write } from '../../main/server/storage/transaction.js';
import { API_KEY, TestServer, startTestServer } from './harness.js';
import { listeningUrl } from '../serve-listening.js';

const root = path.resolve(import.meta.dirname, '../..');
const execFileAsync = promisify(execFile);

describe('restart', () => {
  it('keeps every record, id and key', async () => {
    const t = await startTestServer();
    try {
      await t.post('/api/app/v1/import/', { brands: [{ id: 'b', name: 'B' }], tasks: [{ id: 't', name: 'Task' }] });
      await t.post('/api/v1.5/sku/', { id: 's', name: 'S', brand: 'b' });
      await t.post('/api/v1.5/visits/', { id: 'v', shop: 'x' });
      const key = (await t.post('/api/app/v1/keys/', { name: 'second' })).body.key;
      const before = t.snapshot();
      const dataVisits = (await t.get('/api/data/v1.0/visits/')).body;
      await t.restart();
      expect(t.snapshot()).toEqual(before);
      expect((await t.get('/api/v1.5/sku/s/')).body.brand).toBe('b');
      expect((await t.get('/api/data/v1.0/visits/')).body).toEqual({ ...dataVisits });
      expect((await t.get('/api/v1.5/brands/', { token: key })).status).toBe(200);
      // The outbox recorded each change for the sync engine.
      const outbox = before.outbox as Array<{ entity: string; record_id: string; op: string }>;
      expect(outbox.map((o) => `${o.entity}:${o.record_id}:${o.op}`)).toEqual(expect.arrayContaining(['brand:b:upsert', 'task:t:upsert', 'sku:s:upsert', 'visit:v:upsert']));
    } finally {
      await t.close();
    }
  });
});

describe('serve CLI (build)', () => {
  it('prints the listening line for --port 0, registers --api-key, answers /health, stops on SIGTERM', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-serve-'));
    const child = spawn(process.execPath, [path.join(root, 'dist/main/cli/serve.js'), '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--api-key', 'cli-key-123'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    child.stdout.on('data', (c) => (printed += c));
    try {
      const url = await listeningUrl(child, 30_000);
      // The headless server warms its request path before it listens (docs/api.md, issue 40's sixth
      // pass); on an empty database only each list's first page, then it stops.
      expect(printed).toMatch(/^warmed up before listening: \d+ requests in \d+ ms \(CPU \d+ ms\)\nlistening on /);
      expect(Number(/before listening: (\d+) requests/.exec(printed)?.[1])).toBeLessThan(SERVE_WARM_UP_BEFORE_LISTEN);
      expect(Number(new URL(url).port)).toBeGreaterThan(0);
      expect((await fetch(`${url}/health`)).status).toBe(200);
      expect((await fetch(`${url}/api/v1.5/brands/`, { headers: { authorization: 'Token cli-key-123' } })).status).toBe(200);
      expect((await fetch(`${url}/api/v1.5/brands/`, { headers: { authorization: 'Token other' } })).status).toBe(401);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('keys CLI (build)', () => {
  it('creates a key that the server accepts, lists it without the key, revokes it', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-keys-'));
    const cli = (...args: string[]) => execFileAsync(process.execPath, [path.join(root, 'dist/main/cli/cli.js'), ...args, '--data-dir', dataDir]);
    const t = new TestServer(dataDir);
    try {
      const created = await cli('keys', 'create', '--name', 'ci');
      const key = /^key: (\S+)$/m.exec(created.stdout)![1];
      const id = /^id: +(\S+)$/m.exec(created.stdout)![1];
      const listed = await cli('keys', 'list');
      expect(listed.stdout).toContain(id);
      expect(listed.stdout).toContain('ci');
      expect(listed.stdout).not.toContain(key);
      await t.start();
      expect((await t.get('/api/v1.5/brands/', { token: key })).status).toBe(200);
      await cli('keys', 'revoke', id);
      expect((await t.get('/api/v1.5/brands/', { token: key })).status).toBe(401);
      expect((await cli('keys', 'list')).stdout).toMatch(/revoked/);
      const unknown = await cli('keys', 'revoke', 'nope').then(() => null, (e: { code: number }) => e);
      expect(unknown?.code).toBe(1);
    } finally {
      await t.close();
    }
  });
});

describe('list page cache', () => {
  it('serves a repeated page from memory, but never after a write by this server or another process', async () => {
    const t = await startTestServer();
    try {
      await t.post('/api/v1.5/brands/', { id: 'a', name: 'A' });
      const first = await t.get('/api/v1.5/brands/?limit=10');
      expect((await t.get('/api/v1.5/brands/?limit=10')).text).toBe(first.text);
      // the same page asked through a form body is the same answer
      expect((await t.call('GET', '/api/v1.5/brands/', { form: { limit: 10 } })).body).toEqual(first.body);
      await t.patch('/api/v1.5/brands/a/', { name: 'A2' });
      expect((await t.get('/api/v1.5/brands/?limit=10')).body.results).toEqual([{ id: 'a', name: 'A2' }]);
      // A write by another process (the CLI) on the same data directory.
      const file = path.join(t.dataDir, 'more.json');
      writeFileSync(file, JSON.stringify({ brands: [{ id: 'b', name: 'B' }] }));
      await execFileAsync(process.execPath, [path.join(root, 'dist/main/cli/cli.js'), 'import', file, '--data-dir', t.dataDir]);
      const after = await t.get('/api/v1.5/brands/?limit=10');
      expect(after.body.count).toBe(2);
      expect((await t.get('/api/data/v1.0/brands/')).body.count).toBe(2);
      // a rolled-back write (a failed import) leaves the lists right too
      await t.post('/api/app/v1/import/', { brands: [{ id: 'c', name: 'C' }], skus: [{ name: 'x', brand: 'missing' }] });
      expect((await t.get('/api/v1.5/brands/?limit=10')).body.count).toBe(2);
    } finally {
      await t.close();
    }
  });
});

describe('app endpoints', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates, lists and revokes keys; the key is shown once and works until revoked', async () => {
    const created = await t.post('/api/app/v1/keys/', { name: 'laptop 2' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sa_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/);
    expect(created.body.public_id).toBe(created.body.key.split('.')[0]);
    expect(created.body.role).toBe('integration');
    const list = await t.get('/api/app/v1/keys/');
    expect(list.body.count).toBe(2);
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);
    expect(JSON.stringify(t.snapshot())).not.toContain(created.body.key);
    expect((await t.get('/api/v1.5/brands/', { token: created.body.key })).status).toBe(200);
    expect((await t.delete(`/api/app/v1/keys/${created.body.id}/`)).body).toEqual({ result: 'OK' });
    const revoked = await t.get('/api/v1.5/brands/', { token: created.body.key });
    expect(revoked.status).toBe(401);
    expect(revoked.body).toEqual({ detail: 'Invalid token.' });
    expect((await t.delete('/api/app/v1/keys/nope/')).status).toBe(404);
  });

  it('info tells versions and the data directory', async () => {
    const res = await t.get('/api/app/v1/info/');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ app_version: '0.1.0', data_dir: t.dataDir, database: 'sqlite' });
    // The model version names the shipped weights exactly: the start of the ONNX file's SHA-256.
    const model = readFileSync(path.join(root, 'models', 'shelf-detector.onnx'));
    const digest = createHash('sha256').update(model).digest('hex').slice(0, 12);
    expect(res.body.model_version).toBe(`shelf-detector sha256:${digest}`);
    const embedder = createHash('sha256').update(readFileSync(path.join(root, 'models', 'product-embedder.onnx'))).digest('hex').slice(0, 12);
    expect(res.body.embedder_version).toBe(`product-embedder sha256:${embedder}`);
  });
});

describe('web UI', () => {
  it('serves files and the SPA fallback with the CSP and nosniff, without a token', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-web-'));
    const webRoot = path.join(dataDir, 'web');
    mkdirSync(path.join(webRoot, 'assets'), { recursive: true });
    writeFileSync(path.join(webRoot, 'index.html'), '<!doctype html><title>Shelf Audit</title>');
    writeFileSync(path.join(webRoot, 'assets', 'app.js'), 'console.log(1)');
    const s = await startServer({ dataDir, port: 0, webRoot, apiKey: API_KEY });
    try {
      for (const p of ['/', '/visits/123', '/assets/app.js']) {
        const res = await fetch(s.url + p);
        expect(res.status, p).toBe(200);
        expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      }
      expect(await (await fetch(s.url + '/visits/123')).text()).toContain('<title>Shelf Audit</title>');
      // Hashed assets are kept by the browser; the page that names them is asked for every time.
      expect((await fetch(s.url + '/assets/app.js')).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect((await fetch(s.url + '/')).headers.get('cache-control')).toBe('public, max-age=0');
      const api = await fetch(s.url + '/api/v1.5/unknown/');
      expect(api.status).toBe(404);
      expect(await api.json()).toEqual({ detail: 'Not found.' });
      expect((await fetch(s.url + '/api/v1.5/brands/')).status).toBe(401);
    } finally {
      await s.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('recognize rate limit', () => {
  it('allows 100 a minute per key (invalid requests count too), then 429 with DRF text and Retry-After', async () => {
    const t = await startTestServer();
    try {
      // A key of its own root (as the CLI makes them): keys minted through the API would share the limit (key-roles.test.ts).
      const other = (await write(t.server.app.db, (ctx) => createApiKey(ctx, { name: 'other', role: 'integration' }))).key;
      // Bodies that fail validation: throttling must not depend on the request being valid.
      const post = (token?: string) => t.call('POST', '/api/v1.5/recognize/', { json: { images: 'not-a-list-of-ids', report_types: [42] }, token });
      for (let i = 0; i < 100; i++) {
        const res = await post();
        expect(res.status, res.text).toBeGreaterThanOrEqual(400);
        expect(res.status).not.toBe(429);
      }
      const limited = await post();
      expect(limited.status).toBe(429);
      expect(limited.body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds\.$/);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await post(other)).status).not.toBe(429);
      expect((await t.get('/api/v1.5/brands/')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
