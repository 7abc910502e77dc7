// Values DRF refuses and this server used to store: non-finite numbers, JSON
// nested thousands of levels deep, NUL, lone surrogates and invalid UTF-8 in text. Each is a
// 400 in DRF's shape that stores nothing; rows stored before the check are repaired by a migration.
import Database from 'better-sqlite3';
import path from 'node:path';
import { finiteNumbers } from '../../main/server/storage/migrations/0016-finite-numbers.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE, openDatabase } from '../../main/server/storage/database.js';
import { startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  expect((await t.post('/api/v1.5/sku/', { id: 's1', name: 'SKU' })).status).toBe(201);
  expect((await t.post('/api/v1.5/planograms/', { id: 'p1', name: 'Planogram' })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

const record = { planogram: 'p1', sku: 's1', rack_index: 0, shelf_index: 0, product_index: 0 };

/** Sends `raw` as the JSON body, byte for byte. */
const rawJson = (method: string, p: string, raw: string | Buffer) => t.call(method, p, { raw: { body: raw, type: 'application/json' } });

describe('non-finite numbers', () => {
  it.each([
    ['a form rack_index of Infinity', () => t.call('POST', '/api/v1.5/planogram_records/', { form: { ...record, rack_index: 'Infinity' } }), 'rack_index'],
    ['a JSON width of 1e999', () => rawJson('POST', '/api/v1.5/planogram_records/', JSON.stringify(record).replace('}', ',"width":1e999}')), 'width'],
    ['a JSON width of "1e999"', () => t.post('/api/v1.5/planogram_records/', { ...record, width: '1e999' }), 'width'],
    ['an SKU size of "Infinity"', () => t.post('/api/v1.5/sku/', { id: 's2', name: 'x', size_x_mm: 'Infinity' }), 'size_x_mm'],
    ['a visit latitude of "-Infinity"', () => t.post('/api/v1.5/visits/', { shop: 'x', latitude: '-Infinity' }), 'latitude'],
  ])('%s is a 400 that stores nothing', async (_name, send, field) => {
    const before = t.snapshot();
    const res = await send();
    expect(res.status, res.text.slice(0, 200)).toBe(400);
    expect(res.body[field]).toEqual([expect.stringMatching(/valid (number|integer)/)]);
    expect(t.snapshot()).toEqual(before);
    expect((await t.get('/api/v1.5/planogram_records/')).status).toBe(200);
  });
});

describe('deep nesting', () => {
  it('a visit whose gps_shop nests 4,500 levels deep is a 400, and a shallow one is fine', async () => {
    const deep = '['.repeat(4500) + ']'.repeat(4500);
    const before = t.snapshot();
    const res = await rawJson('POST', '/api/v1.5/visits/', `{"shop":"x","gps_shop":[{"a":${deep}}]}`);
    expect(res.status, res.text.slice(0, 200)).toBe(400);
    expect(res.body.detail).toMatch(/nested deeper than 64 levels/);
    expect(t.snapshot()).toEqual(before);
    const fine = await t.post('/api/v1.5/visits/', { shop: 'x', gps_shop: [{ a: [[[1]]], s: 'text with "[" inside' }] });
    expect(fine.status, fine.text.slice(0, 200)).toBe(201);
  });
});

describe('text DRF refuses', () => {
  it.each([
    ['a NUL character', () => t.post('/api/v1.5/brands/', { id: 'b-nul', name: 'a\u0000b' }), 'name', 'Null characters are not allowed.'],
    ['a lone surrogate', () => rawJson('POST', '/api/v1.5/brands/', '{"id":"b-sur","name":"a\\ud800b"}'), 'name', 'Surrogate characters are not allowed: U+D800.'],
    ['a NUL in a form field', () => t.call('POST', '/api/v1.5/brands/', { form: { id: 'b-form', name: 'a\u0000' } }), 'name', 'Null characters are not allowed.'],
    ['a NUL inside a nested value', () => t.post('/api/v1.5/visits/', { shop: 'x', gps_shop: [{ note: 'a\u0000' }] }), 'gps_shop', 'Null characters are not allowed.'],
  ])('%s is a 400 that stores nothing', async (_name, send, field, text) => {
    const before = t.snapshot();
    const res = await send();
    expect(res.status, res.text.slice(0, 200)).toBe(400);
    expect(res.body).toEqual({ [field]: [text] });
    expect(t.snapshot()).toEqual(before);
  });

  it('invalid UTF-8 bytes in a JSON body are a 400, and valid multi-byte text is kept', async () => {
    const before = t.snapshot();
    const bad = Buffer.concat([Buffer.from('{"id":"b-utf","name":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const res = await rawJson('POST', '/api/v1.5/brands/', bad);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/not valid UTF-8/);
    expect(t.snapshot()).toEqual(before);
    const good = await t.post('/api/v1.5/brands/', { id: 'b-utf', name: 'Smörgås 🥫' });
    expect(good.status).toBe(201);
    expect((await t.get('/api/v1.5/brands/b-utf/')).body.name).toBe('Smörgås 🥫');
  });
});

describe('rows stored before the check (the repair)', () => {
  it('a migration repairs stored infinities, and reads work again', async () => {
    expect((await t.post('/api/v1.5/planogram_records/', { ...record, id: 'pr-inf', rack_index: 1, width: 10 })).status).toBe(201);
    await t.server.close();
    const db = new Database(path.join(t.dataDir, DATABASE_FILE));
    db.prepare("UPDATE planogram_records SET width = 9e999, height = -9e999 WHERE id = 'pr-inf'").run();
    db.close();
    // Run the repair as a database from before it would (later migrations are already there).
    const opened = await openDatabase(t.dataDir);
    await finiteNumbers.up(opened.db);
    await opened.close();
    await t.start();
    const list = await t.get('/api/v1.5/planogram_records/');
    expect(list.status, list.text.slice(0, 200)).toBe(200);
    const row = (await t.get('/api/v1.5/planogram_records/pr-inf/')).body;
    expect(row).toMatchObject({ id: 'pr-inf', rack_index: 1, width: null, height: null });
  });
});
