// Fuzz test: every operation of the served OpenAPI description, driven with hostile input
// generated from its documented schemas (fast-check): wrong types, huge, negative and non-finite
// numbers, long text, NUL and lone surrogates, invalid UTF-8, deep nesting, unknown fields, bad ids in
// the path, bad query parameters, wrong media types and garbled multipart bodies. It fails on any 5xx,
// on any error answer that is not JSON in DRF's shape, and on any change to stored data (every row of
// every table, and the uploaded files) by a refused request.
//
// Every operation gets its share of FUZZ_RUNS requests (default 3000), so none is left out by the
// dice, and before them (for reads) one valid request that must succeed: a server refusing everything
// fails here. The seed is fixed, so CI runs the same requests each time; FUZZ_SEED=<n> replays a run,
// FUZZ_SEED=random draws a new one (printed). FUZZ_ALL=1 goes on after a failure and lists every
// distinct one at the end.
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_HEADER, SYNC_PROTOCOL_VERSION } from '../../main/server/schemas/sync.js';
import { referenceFiles } from '../recognition/fixtures.js';
import { waitForReports } from '../recognition/helpers.js';
import { API_KEY, startTestServer, type TestServer } from './harness.js';
import { expectOk, seedEveryResource } from './seed-every-resource.js';

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  op: Schema;
}

/** The fixed seed of every ordinary run; another only when asked for. */
const DEFAULT_SEED = 372026;
const SEED = process.env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : DEFAULT_SEED;
if (!Number.isInteger(SEED)) throw new Error(`FUZZ_SEED=${process.env.FUZZ_SEED}: a whole number, or "random"`);
const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);
const KEEP_GOING = process.env.FUZZ_ALL === '1';
/** The share of 2xx answers over all fuzz requests below which the run fails (about a third measured). */
const MIN_2XX_SHARE = 0.2;

let t: TestServer;
let doc: Schema;
let ops: Operation[];
let reader: Database.Database;
/** A device's key: the device endpoints (sync pull) answer devices, not API keys. */
let deviceKey: string;
const png = readFileSync(referenceFiles('fanta_pet')[0]);
/** Seeded records by path segment (v1.5 string ids; Data API paths take per-instance integers). */
const seeded: Record<string, string> = {
  brands: 'b1', categories: 'c1', manufacturers: 'm1', sku: 's1', displays: 'd1', planograms: 'p1', planogram_records: 'pr1',
  mhl: 'mh1', mhl_record: 'mr1', visits: 'v1', agents: 'agent-1', prices: 'price1',
};

beforeAll(async () => {
  t = await startTestServer();
  const ids = await seedEveryResource(t, png);
  // The seeded scene recognised (its review routes answer only then); after that nothing may change
  // stored data behind the requests' backs: no recognition jobs run.
  await waitForReports(t, [ids.report]);
  await t.server.app.recognitionWorker.stop();
  seeded.uploads = ids.upload;
  seeded.token = ids.token;
  seeded.image_id = ids.skuImage;
  seeded.scene = ids.scene;
  seeded.reports = ids.report;
  seeded.scenes = ids.scene;
  const ok = expectOk;
  seeded.keys = ok(await t.post('/api/app/v1/keys/', { name: 'fuzzed' }), 'key').id;
  const device = ok(await t.post('/api/app/v1/devices/', { name: 'fuzzed', role: 'auditor' }), 'device');
  seeded.devices = device.id;
  deviceKey = device.key;
  doc = (await t.get('/api/schema/')).body;
  ops = [];
  for (const [p, item] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(item)) ops.push({ method: method.toUpperCase(), path: p, op });
  }
  reader = new Database(path.join(t.dataDir, 'shelf-audit.sqlite'), { readonly: true });
}, 120_000);

afterAll(async () => {
  reader?.close();
  await t?.close();
});

// ---------------------------------------------------------------------------------------------
// Stored data: a digest of every row of every table and of the uploaded files' names.

function digest(): string {
  const hash = createHash('sha256');
  const tables = reader.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>;
  for (const { name } of tables) {
    hash.update(name);
    for (const row of reader.prepare(`SELECT * FROM "${name}"`).raw().iterate()) hash.update(JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? String(v) : Buffer.isBuffer(v) ? v.toString('hex') : v)));
  }
  const files = readdirSync(path.join(t.dataDir, 'uploads'), { recursive: true }) as string[];
  hash.update(files.sort().join('\n'));
  return hash.digest('hex');
}

// ---------------------------------------------------------------------------------------------
// Hostile values.

/** JSON text that JSON.stringify cannot write: non-finite and huge numbers, duplicate and odd keys. */
class RawJson {
  constructor(readonly text: string) {}
}

function toJson(v: unknown): string {
  if (v instanceof RawJson) return v.text;
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

const LONE_SURROGATES = ['\ud800', '\udfff', 'a\udc00b', '\ud83d'];
const hostileString = fc.oneof(
  fc.constantFrom(
    '', ' ', '\u0000', 'a\u0000b', ...LONE_SURROGATES, 'NaN', 'Infinity', '-Infinity', '1e999', '-0', '0x1F', ' 7 ', '١٢٣', '1_000',
    'null', 'true', '[]', '{}', '{"x":1}', '../../etc/passwd', '%00', '%zz', "' OR 1=1 --", '2024-13-45T99:99:99Z', '9999-12-31T23:59:59Z',
    'http://127.0.0.1:1/x.png', 'http://[::1]/', 'file:///etc/passwd', 'javascript:alert(1)', '<script>alert(1)</script>', '🙂', 'ß', '\u202e',
    'FACING_COUNT', 'a,b,,c', '-1.99', '1,99', '1.999', '99999999.99', '2026-02-30', 'eur', '-name', 'name,-cid,unknown', '__proto__', 'constructor',
  ),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer({ min: 256, max: 3000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => `id${String.fromCharCode(c)}`),
);
const hostileNumber = fc.oneof(
  fc.constantFrom(0, -1, -0.5, 1.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, Number.MAX_VALUE, Number.MIN_VALUE, 1e21),
  fc.constantFrom('1e999', '-1e999', '1e400', '123456789012345678901234567890', '-0', '1E2', '0.0000000000000000000001').map((s) => new RawJson(s)),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const deep = fc.integer({ min: 30, max: 300 }).map((d) => new RawJson('['.repeat(d) + ']'.repeat(d)));
const deepObject = fc.integer({ min: 30, max: 120 }).map((d) => new RawJson('{"a":'.repeat(d) + '1' + '}'.repeat(d)));
const odd = fc.constantFrom(new RawJson('{"__proto__":{"admin":true}}'), new RawJson('{"a":1,"a":2}'), new RawJson('{"constructor":{"prototype":{"x":1}}}'));

const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { weight: 4, arbitrary: hostileString },
    { weight: 3, arbitrary: hostileNumber },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
    { weight: 1, arbitrary: fc.array(tie('v'), { maxLength: 4, depthIdentifier: 'v' }) },
    { weight: 1, arbitrary: fc.dictionary(hostileString.filter((s) => s.length < 40), tie('v'), { maxKeys: 3, depthIdentifier: 'v' }) },
    { weight: 1, arbitrary: deep },
    { weight: 1, arbitrary: deepObject },
    { weight: 1, arbitrary: odd },
  ),
})).v;

/** A seeded record's id (read when the arbitraries are built, after the seeding). */
const anId = () => fc.constantFrom(...Object.values(seeded));

/** A value for `schema`: mostly plausible (so deeper code runs), often hostile. */
function valueFor(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 3, arbitrary: plausible(schema, depth) }, { weight: 2, arbitrary: hostileValue });
}

function plausible(schema: Schema | undefined, depth: number): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return hostileValue;
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) return fc.oneof(...branches.map((b: Schema) => plausible(b, depth + 1)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'string'];
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'null':
          return fc.constant(null);
        case 'integer':
          return fc.integer({ min: Math.max(schema.minimum ?? -1000, -(2 ** 40)), max: Math.min(schema.maximum ?? 1000, 2 ** 40) });
        case 'number':
          return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
        case 'boolean':
          return fc.boolean();
        case 'array':
          return fc.array(plausible(schema.items, depth + 1), { maxLength: Math.min(schema.maxItems ?? 5, 5) });
        case 'object': {
          const props = Object.entries<Schema>(schema.properties ?? {});
          if (props.length === 0) return fc.dictionary(fc.string({ maxLength: 10 }), hostileString, { maxKeys: 3 });
          return fc.record(Object.fromEntries(props.map(([k, s]) => [k, plausible(s, depth + 1)])), { requiredKeys: [] });
        }
        default:
          if (schema.format === 'uri' || schema.pattern === '^https?://') return fc.constantFrom('http://127.0.0.1:9/hook', 'https://example.invalid/x', 'http://10.0.0.1/');
          if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
          return fc.oneof(anId(), fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) }));
      }
    }),
  );
}

/** A request body's fields: documented ones with plausible or hostile values, unknown ones besides. */
function fieldsFor(schema: Schema | undefined): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.entries<Schema>(schema?.properties ?? {});
  const known = fc.record(Object.fromEntries(props.map(([k, s]) => [k, valueFor(s)])), { requiredKeys: [] });
  const unknown = fc.dictionary(fc.oneof(fc.constantFrom('__proto__', 'constructor', 'id', 'extra', 'data_id', 'created_at'), fc.string({ maxLength: 12 })), hostileValue, { maxKeys: 2 });
  return fc.tuple(known, unknown).map(([a, b]) => ({ ...b, ...a }));
}

// ---------------------------------------------------------------------------------------------
// Requests.

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  label: string;
  /** Why the request must be refused whatever else it says (invalid UTF-8 in a text value). */
  mustRefuse?: string;
}

/** Percent-encodes all but unreserved characters, as raw bytes (so invalid UTF-8 can be sent). */
function enc(value: string | Buffer): string {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  let out = '';
  for (const b of bytes) out += /[A-Za-z0-9._~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

const INVALID_UTF8 = [Buffer.from([0xff]), Buffer.from([0xc3, 0x28]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xe2, 0x82]), Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80])];
const invalidUtf8 = fc.constantFrom(...INVALID_UTF8).map((b) => Buffer.concat([Buffer.from('a'), b, Buffer.from('z')]));

/** A path parameter: a seeded record's id, or something no route should trip on. */
function pathValue(name: string, segment: string): fc.Arbitrary<string> {
  const known = name === 'token' ? seeded.token : name === 'image_id' ? seeded.image_id : /^\/api\/data\/v1\.[01]\//.test(segment) ? '1' : seeded[segment.split('/').filter(Boolean).at(-1)!] ?? 's1';
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(enc(known)) },
    { weight: 1, arbitrary: fc.constantFrom('0', '-1', '1.5', '1e3', '99999999999999999999', '2147483648', '%2F', '..', '%00', '%zz', '%', '%ED%A0%80', '%C3%28', '%FF', '%20', 'NaN') },
    { weight: 2, arbitrary: hostileString.filter((s) => s.length > 0 && s.length < 400).map(enc) },
    { weight: 1, arbitrary: invalidUtf8.map(enc) },
  );
}

function queryFor(op: Schema): fc.Arbitrary<string> {
  const params = (op.parameters ?? []).filter((p: Schema) => p.in === 'query');
  const pairs = fc.array(
    fc.oneof(
      ...(params.length > 0 ? [fc.tuple(fc.constantFrom(...params.map((p: Schema) => p.name as string)), fc.constant(null)).chain(([name]) => {
        const schema = params.find((p: Schema) => p.name === name).schema;
        return fc.tuple(fc.constant(enc(name)), fc.oneof(valueFor(schema).map((v) => enc(typeof v === 'string' ? v : toJson(v))), invalidUtf8.map(enc), fc.constantFrom('%zz', '%', '%00', '')));
      })] : []),
      fc.tuple(fc.constantFrom('limit', 'offset', 'format', 'ordering', 'search', 'page', '__proto__', 'limit[]', 'x'), hostileString.map(enc)),
    ),
    { maxLength: 4 },
  );
  return pairs.map((ps) => (ps.length === 0 ? '' : '?' + ps.map(([k, v]) => `${k}=${v}`).join('&')));
}

function contentSchemas(op: Schema): Record<string, Schema> {
  return Object.fromEntries(Object.entries<Schema>(op.requestBody?.content ?? {}).map(([type, c]) => [type, c.schema ?? {}]));
}

/** A form value as a client would send it (urlencoded or a multipart text part). */
function formText(v: unknown): string {
  return typeof v === 'string' ? v : v === null ? '' : toJson(v);
}

function urlencoded(fields: Record<string, unknown>, garbage: Buffer | null): Buffer {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(fields)) for (const item of Array.isArray(v) ? v : [v]) parts.push(`${enc(k)}=${enc(formText(item))}`);
  if (garbage) parts.push(`x=${enc(garbage)}`, '%zz=1', 'a=%', 'b=%E0%A4%A');
  return Buffer.from(parts.join('&'));
}

interface Part {
  name: string;
  filename?: string;
  type?: string;
  data: Buffer;
}

function multipartBody(parts: Part[], boundary: string, garble: number): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name.replace(/["\r\n]/g, '_')}"`;
    if (p.filename !== undefined) head += `; filename="${p.filename.replace(/["\r\n]/g, '_')}"`;
    if (p.type) head += `\r\nContent-Type: ${p.type}`;
    chunks.push(Buffer.from(head + '\r\n\r\n'), p.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  const body = Buffer.concat(chunks);
  switch (garble) {
    case 1:
      return body.subarray(0, Math.floor(body.length / 2)); // truncated
    case 2:
      return Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data\r\n\r\nno name\r\n`), body]); // a part without a name
    case 3:
      return Buffer.from(`--${boundary}\r\n\r\n\r\n--${boundary}`); // no headers, no closing
    case 4:
      return Buffer.from('not multipart at all');
    default:
      return body;
  }
}

const fileBytes = fc.oneof(
  fc.constant(png),
  fc.constant(png.subarray(0, Math.floor(png.length / 2))),
  fc.constant(Buffer.alloc(0)),
  fc.uint8Array({ maxLength: 2000 }).map((a) => Buffer.from(a)),
  fc.constant(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100, 7)])),
  fc.constant(Buffer.from('{"brands": [{"id": "fz", "name": "\\u0000"}]}')),
  fc.constant(Buffer.from('id,name\nfz,"unterminated')),
);

const OVERSIZED_JSON = Buffer.from(JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }));

interface BodyVariant {
  type?: string;
  body?: Buffer;
  label: string;
  mustRefuse?: string;
}

function bodyFor(op: Schema, method: string): fc.Arbitrary<BodyVariant> {
  const schemas = contentSchemas(op);
  const types = Object.keys(schemas);
  const objectSchema = schemas['application/json'] ?? schemas['multipart/form-data'] ?? schemas['application/x-www-form-urlencoded'];
  const fields = fieldsFor(objectSchema);
  const boundary = 'fuzzBoundary7MA4YWxkTrZu0gW';
  const files = Object.entries<Schema>(schemas['multipart/form-data']?.properties ?? {}).filter(([, s]) => s.contentMediaType).map(([k]) => k);
  const variants: Array<fc.Arbitrary<BodyVariant>> = [
    fc.constant({ label: 'no body' }),
    fields.map((f) => ({ type: 'application/json', body: Buffer.from(toJson(f)), label: 'json' })),
    hostileValue.map((v) => ({ type: 'application/json', body: Buffer.from(toJson(v)), label: 'json value' })),
    fc.tuple(fields, invalidUtf8).map(([f, bad]) => ({ type: 'application/json', body: Buffer.concat([Buffer.from(toJson({ ...f, name: 'X' }).slice(0, -1) + ',"bad":"'), bad, Buffer.from('"}')]), label: 'json invalid utf-8', mustRefuse: 'invalid UTF-8 in JSON' })),
    fc.constantFrom('{"a":', '{', '', '   ', '{"a":1}}', '\ufeff{}', 'nul', '[1,2', '{"a":"\\ud800"}', '{"a":"\\u0000"}').map((s) => ({ type: 'application/json', body: Buffer.from(s), label: 'json broken' })),
    fc.tuple(fields, fc.option(invalidUtf8, { nil: null })).map(([f, bad]) => ({ type: 'application/x-www-form-urlencoded', body: urlencoded(f, bad), label: `urlencoded${bad ? ' invalid utf-8' : ''}`, ...(bad ? { mustRefuse: 'invalid UTF-8 in a form body' } : {}) })),
    fc
      .tuple(
        fields,
        fc.array(fc.record({ name: fc.oneof(fc.constantFrom(...(files.length > 0 ? files : ['file']), 'datafile', 'image', 'file'), fc.string({ maxLength: 10 })), filename: fc.constantFrom('a.png', 'a.csv', '', '../../x.jpg', 'x\u0000.png'), type: fc.constantFrom('image/png', 'image/jpeg', 'text/csv', 'application/octet-stream', ''), data: fileBytes }), { maxLength: 3 }),
        fc.option(invalidUtf8, { nil: null }),
        fc.nat({ max: 12 }),
      )
      .map(([f, fileParts, bad, garble]) => {
        const parts: Part[] = [];
        for (const [k, v] of Object.entries(f)) for (const item of Array.isArray(v) ? v : [v]) parts.push({ name: k, data: Buffer.from(formText(item)) });
        if (bad) parts.push({ name: Object.keys(f)[0] ?? 'name', data: bad });
        parts.push(...fileParts.map((p) => ({ ...p, type: p.type || undefined })));
        return { type: `multipart/form-data; boundary=${boundary}`, body: multipartBody(parts, boundary, garble > 4 ? 0 : garble), label: `multipart${bad ? ' invalid utf-8' : ''}${garble > 0 && garble <= 4 ? ` garbled ${garble}` : ''}`, ...(bad && (garble === 0 || garble > 4) ? { mustRefuse: 'invalid UTF-8 in a multipart text field' } : {}) };
      }),
    fc
      .tuple(fc.constantFrom('text/plain', 'application/xml', 'text/csv', 'multipart/form-data', 'multipart/mixed; boundary=x', 'application/json; charset=latin1', 'APPLICATION/JSON', 'application/x-www-form-urlencoded; charset=utf-16', 'image/png', '*/*', ';', 'application/json-patch+json'), fields)
      .map(([type, f]) => ({ type, body: Buffer.from(toJson(f)), label: `as ${type}` })),
  ];
  // Over the limits: a JSON body past 1 MiB, more multipart fields or files than allowed.
  variants.push(
    fc.constantFrom('json', 'fields', 'files').map((kind) => {
      if (kind === 'json') return { type: 'application/json', body: OVERSIZED_JSON, label: 'json over 1 MiB' };
      const parts: Part[] = Array.from({ length: kind === 'fields' ? 201 : 21 }, (_, i) => (kind === 'fields' ? { name: `f${i}`, data: Buffer.from('x') } : { name: files[0] ?? 'file', filename: `${i}.png`, type: 'image/png', data: png }));
      return { type: `multipart/form-data; boundary=${boundary}`, body: multipartBody(parts, boundary, 0), label: `multipart too many ${kind}` };
    }),
  );
  if (types.includes('text/csv')) variants.push(fc.constantFrom('id,name\nfz1,ok\n', 'name\n\u0000\n', 'a,"b\n', '').map((s) => ({ type: 'text/csv', body: Buffer.from(s), label: 'csv' })));
  // Bodies on GET and DELETE too: the interface's own examples send list paging as a GET form body.
  return method === 'GET' || method === 'DELETE' ? fc.oneof({ weight: 4, arbitrary: variants[0] }, { weight: 1, arbitrary: fc.oneof(...variants) }) : fc.oneof(...variants);
}

function requestFor(o: Operation): fc.Arbitrary<FuzzRequest> {
  const names = [...o.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], segment: o.path.slice(0, m.index) }));
  return fc
    .tuple(fc.tuple(...names.map((n) => pathValue(n.name, n.segment))), queryFor(o.op), bodyFor(o.op, o.method), fc.constantFrom<'key' | 'none' | 'bad'>(...Array<'key'>(18).fill('key'), 'none', 'bad'))
    .map(([values, query, body, auth]) => {
      let i = 0;
      const p = o.path.replace(/\{\w+\}/g, () => values[i++]);
      const headers: Record<string, string> = {};
      if (auth === 'key') headers.authorization = `Token ${API_KEY}`;
      if (auth === 'bad') headers.authorization = 'Token \u00ff';
      if (body.type) headers['content-type'] = body.type;
      // A body is read (and so must be refused) on the writes; GET and DELETE bodies are not parsed.
      const mustRefuse = o.method === 'GET' || o.method === 'DELETE' ? undefined : body.mustRefuse;
      return { method: o.method, path: p + query, headers, body: body.body, label: `${o.method} ${o.path} [${body.label}, auth ${auth}]`, mustRefuse };
    });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function send(r: FuzzRequest): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(t.url);
    const headers: Record<string, string> = { ...r.headers };
    if (r.body) headers['content-length'] = String(r.body.length);
    const req = http.request({ host: url.hostname, port: url.port, method: r.method, path: r.path, headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Buffer.from(v, 'latin1').toString('latin1')])), agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

// ---------------------------------------------------------------------------------------------
// DRF's error shapes.

/** A field's errors: a list of texts, nested fields (a nested serializer) or a list of those (many=True). */
function isFieldErrors(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0 && (v.every((x) => typeof x === 'string') || v.every((x) => x && typeof x === 'object' && (Array.isArray(x) ? isFieldErrors(x) : Object.values(x).every(isFieldErrors) || Object.keys(x).length === 0)));
  return !!v && typeof v === 'object' && Object.keys(v).length > 0 && Object.values(v).every(isFieldErrors);
}

/** {"detail": "..."} (with extra keys where the API documents them), or field -> errors. */
function isDrfErrorBody(body: unknown): boolean {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  if ('detail' in b) return typeof b.detail === 'string';
  return Object.keys(b).length > 0 && Object.values(b).every(isFieldErrors);
}

function problemOf(r: FuzzRequest, res: { status: number; type: string; text: string }, changed: boolean): string | null {
  if (res.status >= 500) return `${res.status}: ${res.text.slice(0, 300)}`;
  if (r.mustRefuse && res.status < 400) return `${res.status}: accepted ${r.mustRefuse}`;
  if (res.status >= 400) {
    if (!res.type.startsWith('application/json')) return `${res.status} answered ${res.type || 'no content type'}: ${res.text.slice(0, 200)}`;
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      return `${res.status} answered invalid JSON: ${res.text.slice(0, 200)}`;
    }
    if (!isDrfErrorBody(body)) return `${res.status} answered a body not in DRF's shape: ${res.text.slice(0, 300)}`;
    if (changed) return `${res.status} refused the request, yet stored data changed: ${res.text.slice(0, 200)}`;
  }
  return null;
}

/** A read with the seeded records' ids, the key and nothing else: it must succeed. */
function validRead(o: Operation): FuzzRequest {
  const names = [...o.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], segment: o.path.slice(0, m.index) }));
  let i = 0;
  const p = o.path.replace(/\{\w+\}/g, () => {
    const { name, segment } = names[i++];
    return enc(name === 'token' ? seeded.token : name === 'image_id' ? seeded.image_id : /^\/api\/data\/v1\.[01]\//.test(segment) ? '1' : seeded[segment.split('/').filter(Boolean).at(-1)!] ?? 's1');
  });
  const device = o.path.startsWith('/api/app/v1/sync/pull');
  // Required query parameters, with a value each knows (the pull's cursor and the device's clock, a seeded visit).
  const known: Record<string, string> = { cursor: '0', client_time: new Date().toISOString(), visit: 'v1', visit__in: 'v1', mark: 'retake', date_from: '2026-01-01', date_to: '2026-12-31', format: 'csv' };
  const query = (o.op.parameters ?? []).filter((q: Schema) => q.in === 'query' && q.required).map((q: Schema) => {
    if (!(q.name in known)) throw new Error(`no valid value known here for ${o.method} ${o.path}'s required ${q.name}`);
    return `${q.name}=${enc(known[q.name])}`;
  });
  const headers: Record<string, string> = device ? { authorization: `Token ${deviceKey}`, [PROTOCOL_HEADER]: String(SYNC_PROTOCOL_VERSION) } : { authorization: `Token ${API_KEY}` };
  return { method: 'GET', path: p + (query.length ? `?${query.join('&')}` : ''), headers, label: `valid GET ${o.path}` };
}

describe('fuzz: every documented operation with hostile input', () => {
  it('never answers 5xx, always answers errors in DRF shape, and a refused request changes nothing', async () => {
    // Deletes last: every other operation, the valid reads above all, finds the seeded records.
    const order = ops.toSorted((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
    const perOp = Math.max(1, Math.round(RUNS / ops.length));
    console.log(`fuzz seed: ${SEED} (replay with FUZZ_SEED=${SEED}), ${perOp} requests for each of ${ops.length} operations`);
    expect(ops.length).toBeGreaterThan(100);
    const failures = new Map<string, string>();
    let before = digest();
    let sent = 0;
    const statuses: Record<string, number> = {};
    const hits = new Map<string, number>();
    const validReads: Array<{ label: string; status: number; text: string }> = [];

    const check = async (r: FuzzRequest, op: string): Promise<void> => {
      const res = await send(r);
      sent++;
      hits.set(op, (hits.get(op) ?? 0) + 1);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (r.label.startsWith('valid ')) validReads.push({ label: r.label, status: res.status, text: res.text.slice(0, 200) });
      let changed = false;
      if (r.method !== 'GET' || res.status < 400) {
        const after = digest();
        changed = after !== before;
        before = after;
      }
      // A laptop pointed at a central would sync in the background: point it back at none.
      if (r.path.startsWith('/api/app/v1/sync/settings') && res.status < 300) {
        await send({ method: 'PUT', path: '/api/app/v1/sync/settings/', headers: { authorization: `Token ${API_KEY}`, 'content-type': 'application/json' }, body: Buffer.from('{"central_url":null}'), label: 'reset' });
        before = digest();
      }
      const problem = problemOf(r, res, changed);
      if (!problem) return;
      const key = `${r.label.replace(/, auth \w+\]/, ']')} ${problem.slice(0, 60)}`;
      if (!failures.has(key)) failures.set(key, `${r.label} ${r.method} ${r.path.slice(0, 300)} (${r.headers['content-type'] ?? 'no body'}; ${r.body?.subarray(0, 300).toString('latin1') ?? ''}) -> ${problem}`);
      if (!KEEP_GOING) throw new Error(`seed ${SEED}: ${failures.get(key)}`);
    };

    for (const [index, o] of order.entries()) {
      const op = `${o.method} ${o.path}`;
      if (o.method === 'GET') await check(validRead(o), op);
      // Each operation's own run, seeded from the run's seed and its place in the order.
      await fc
        .assert(
          fc.asyncProperty(requestFor(o), (r) => check(r, op)),
          { seed: SEED + index, numRuns: perOp, endOnFailure: true, verbose: fc.VerbosityLevel.None },
        )
        .catch((e: Error) => {
          throw new Error(`fuzz failed on ${op} (seed ${SEED}; replay with FUZZ_SEED=${SEED}): ${e.message.split('\n').slice(0, 8).join('\n')}`);
        });
    }
    const byClass = (lo: number) => Object.entries(statuses).filter(([s]) => Number(s) >= lo && Number(s) < lo + 100).reduce((n, [, c]) => n + c, 0);
    console.log(`fuzz: ${sent} requests, statuses ${JSON.stringify(statuses)}; valid reads ${validReads.length}, of them 2xx ${validReads.filter((v) => v.status < 300).length}`);
    if (failures.size > 0) throw new Error(`fuzz seed ${SEED}: ${failures.size} distinct failures:\n${[...failures.values()].join('\n\n')}`);
    // Every operation was called, as many times as planned.
    expect(ops.filter((o) => (hits.get(`${o.method} ${o.path}`) ?? 0) < perOp).map((o) => `${o.method} ${o.path}`)).toEqual([]);
    // The valid reads all succeed: a server that refuses everything (or 404s every seeded record) fails.
    expect(validReads.length).toBe(ops.filter((o) => o.method === 'GET').length);
    expect(validReads.filter((v) => v.status >= 300)).toEqual([]);
    // The hostile requests mostly fail, but not all: plausible ones reach the code behind the checks.
    expect(byClass(500)).toBe(0);
    expect(byClass(200) / sent).toBeGreaterThan(MIN_2XX_SHARE);
    expect(byClass(400) / sent).toBeGreaterThan(0.5);
  }, 300_000);
});
