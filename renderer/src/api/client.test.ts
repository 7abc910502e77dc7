// The API client against the real server on a temp SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../main/server/server.js';
import { ApiClient, buildPath, relativeLink } from './client';
import { createOne, listAll } from './endpoints';
import { ApiError } from './errors';

const KEY = 'renderer-client-test-key-0123456789';
let server: RunningServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'renderer-client-'));
  server = await startServer({ dataDir, port: 0, apiKey: KEY });
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('paths', () => {
  it('adds query parameters, leaving out blanks', () => {
    expect(buildPath('/a/', { limit: 5, q: '', x: null, y: undefined, ok: true })).toBe('/a/?limit=5&ok=true');
    expect(buildPath('/a/?limit=5', { offset: 10 })).toBe('/a/?limit=5&offset=10');
  });

  it('keeps path and query of absolute next links', () => {
    expect(relativeLink('http://127.0.0.1:9/api/v1.5/sku/?limit=2&offset=4')).toBe('/api/v1.5/sku/?limit=2&offset=4');
  });
});

describe('ApiClient on the real server', () => {
  it('walks `next` to the end of a list', async () => {
    const statuses: number[] = [];
    const api = new ApiClient(server.url, KEY, { onResponse: (_, s) => void statuses.push(s) });
    for (let i = 0; i < 7; i++) await createOne(api, 'categories', { name: `C${i}` });
    const all = await api.all<{ name: string }>('/api/v1.5/categories/', { limit: 3 });
    expect(all.map((c) => c.name).sort()).toEqual(['C0', 'C1', 'C2', 'C3', 'C4', 'C5', 'C6']);
    // 7 creates and 3 pages of 3.
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(await listAll(api, 'categories')).toHaveLength(7);
  });

  it('turns a DRF validation body into field errors', async () => {
    const api = new ApiClient(server.url, KEY);
    const error = await createOne(api, 'sku', { name: '', size_x_mm: 'wide' as unknown as number }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(400);
    expect(Object.keys(error.fieldErrors)).toEqual(expect.arrayContaining(['name', 'size_x_mm']));
  });

  it('reports a rejected key as 401 with the server message', async () => {
    const seen: Array<[boolean, number]> = [];
    const api = new ApiClient(server.url, 'wrong-key', { onResponse: (r, s) => void seen.push([r, s]) });
    const error = await listAll(api, 'brands').catch((e) => e);
    expect(error).toMatchObject({ status: 401, message: 'Invalid token.' });
    expect(seen).toEqual([[true, 401]]);
  });

  it('reports an unreachable server as a network error (status 0)', async () => {
    const seen: Array<[boolean, number]> = [];
    const api = new ApiClient('http://127.0.0.1:9', KEY, { onResponse: (r, s) => void seen.push([r, s]) });
    const error = await listAll(api, 'brands').catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.isNetwork).toBe(true);
    expect(seen).toEqual([[false, 0]]);
  });
});
