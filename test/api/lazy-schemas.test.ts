// The routes' validators and serializers are compiled on first use and by the warm-up once the server
// listens (http/lazy-schemas.ts), not before it listens: a fresh server starts sooner, and validation
// and serialization answer exactly as when compiled up front.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../../main/server/app.js';
import { openDatabase } from '../../main/server/storage/database.js';
import { LazySchemas } from '../../main/server/http/lazy-schemas.js';
import { TestServer } from './harness.js';

describe('schemas compiled lazily', () => {
  const t = new TestServer();
  beforeAll(() => t.start(), 60_000);
  afterAll(() => t.close());

  it('are all compiled by the warm-up once the server listens, none failing', async () => {
    const runs = await t.server.app.warmedUp();
    const run = runs.find((r) => r.name === 'schemas');
    expect(run).toBeDefined();
    expect(run!.error).toBeUndefined();
    expect(runs.at(-1)!.name).toBe('schemas');
    expect(t.server.app.lazySchemas.pendingCount).toBe(0);
    // Every route with a body, query, params or response schema: well over a hundred of them.
    expect(t.server.app.lazySchemas.compiledCount).toBeGreaterThan(100);
  });

  it('validate and serialize as Fastify’s own compilers do: every invalid field at once, in DRF’s shape', async () => {
    const bad = await t.call('POST', '/api/v1.5/sku/', { json: { name: 'x', cid: 'c'.repeat(256), brand: ['b1', 'b2'] } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body).sort()).toEqual(['brand', 'cid']);
    const made = await t.call('POST', '/api/v1.5/sku/', { json: { name: 'Lazy cola' } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'Lazy cola' });
  });
});

describe('before the server listens', () => {
  it('no schema is compiled while the server starts; a route compiles its own on first use', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'lazy-schemas-'));
    const opened = await openDatabase(dataDir);
    const app = await buildApp({ db: opened.db, config: { host: '127.0.0.1', port: 0, dataDir, webRoot: null, logger: false } });
    try {
      await app.ready();
      expect(app.lazySchemas.compiledCount).toBe(0);
      const pending = app.lazySchemas.pendingCount;
      expect(pending).toBeGreaterThan(100);
      // An unauthenticated request is refused before validation: still nothing compiled.
      const res = await app.inject({ method: 'GET', url: '/api/v1.5/sku/?limit=abc' });
      expect(res.statusCode).toBe(401);
      await app.lazySchemas.compileAll();
      expect(app.lazySchemas.pendingCount).toBe(0);
      expect(app.lazySchemas.compiledCount).toBe(pending);
    } finally {
      await app.close();
      await opened.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the warm-up’s compiling', () => {
  it('waits while requests come, compiles all once idle, and stops when the server closes', async () => {
    const schemas = new LazySchemas();
    const build = schemas.compilersFactory.buildValidator as unknown as (
      external: unknown,
      options: unknown,
    ) => (route: { schema: unknown; method: string; url: string; httpPart: string }) => ((data: unknown) => boolean) & { errors?: unknown };
    const compile = build({}, { customOptions: {} });
    const validators = Array.from({ length: 20 }, (_, i) =>
      compile({ schema: { type: 'object', properties: { [`f${i}`]: { type: 'integer' } } }, method: 'GET', url: `/r${i}`, httpPart: 'querystring' }),
    );
    expect(schemas.pendingCount).toBe(20);
    // Used before the warm-up: compiled on the spot, and it validates.
    expect(validators[0]({ f0: 'x' })).toBe(false);
    expect(validators[0].errors).toBeTruthy();
    expect(schemas.pendingCount).toBe(19);

    let idle = false;
    const closing = new AbortController();
    const run = schemas.compileAll({ batch: 4, idle: () => idle, signal: closing.signal });
    await new Promise((r) => setTimeout(r, 300));
    expect(schemas.pendingCount).toBe(19);
    idle = true;
    await run;
    expect(schemas.pendingCount).toBe(0);
    expect(schemas.compiledCount).toBe(20);

    // A server closing stops the waiting at once, with what is left still compiled on first use.
    const late = compile({ schema: { type: 'string' }, method: 'GET', url: '/late', httpPart: 'params' });
    closing.abort();
    await schemas.compileAll({ idle: () => false, signal: closing.signal });
    expect(schemas.pendingCount).toBe(1);
    expect(late('text')).toBe(true);
    expect(schemas.pendingCount).toBe(0);
  });
});
