// Shared setup for the API integration tests: a real server (startServer) on a real SQLite file in a
// temp directory, called over HTTP with fetch.
import Database from 'better-sqlite3';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '../../main/server/server.js';

export const API_KEY = 'test-key-0123456789abcdefghijklmnopqrstuvwxyz';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  /** JSON body (default) */
  json?: unknown;
  /** urlencoded form body; arrays repeat the key */
  form?: Record<string, string | number | Array<string | number>>;
  /** multipart body */
  multipart?: FormData;
  /** raw body with its content type */
  raw?: { body: string | Buffer; type: string };
  /** token to send; null sends no Authorization header */
  token?: string | null;
  headers?: Record<string, string>;
}

export class TestServer {
  server!: RunningServer;
  readonly dataDir: string;

  constructor(dataDir?: string) {
    this.dataDir = dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-api-'));
  }

  get url(): string {
    return this.server.url;
  }

  async start(): Promise<this> {
    this.server = await startServer({ dataDir: this.dataDir, port: 0, apiKey: API_KEY, webRoot: undefined });
    return this;
  }

  async restart(): Promise<void> {
    await this.server.close();
    await this.start();
  }

  async close(): Promise<void> {
    await this.server?.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  async call<T = any>(method: string, pathOrUrl: string, o: CallOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token !== null) headers.authorization ??= `Token ${o.token ?? API_KEY}`;
    let body: BodyInit | undefined;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers['content-type'] = 'application/json';
    } else if (o.form) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(o.form)) for (const item of Array.isArray(v) ? v : [v]) params.append(k, String(item));
      body = params.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (o.multipart) {
      body = o.multipart;
    } else if (o.raw) {
      body = o.raw.body as BodyInit;
      headers['content-type'] = o.raw.type;
    }
    const url = pathOrUrl.startsWith('http') ? pathOrUrl : this.url + pathOrUrl;
    if ((method === 'GET' || method === 'HEAD') && body !== undefined) {
      return this.withBody(method, url, headers, String(body));
    }
    const res = await fetch(url, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let parsed: any = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  /** fetch refuses a body on GET; the interface's examples send list paging as a GET form body. */
  private withBody(method: string, url: string, headers: Record<string, string>, body: string): Promise<ApiResponse> {
    return new Promise((resolve, reject) => {
      const req = http.request(url, { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, String(v));
          resolve({ status: res.statusCode ?? 0, headers: h, body: text ? JSON.parse(text) : undefined, text });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  get = <T = any>(p: string, o?: CallOptions) => this.call<T>('GET', p, o);
  post = <T = any>(p: string, json?: unknown, o?: CallOptions) => this.call<T>('POST', p, { json, ...o });
  put = <T = any>(p: string, json?: unknown, o?: CallOptions) => this.call<T>('PUT', p, { json, ...o });
  patch = <T = any>(p: string, json?: unknown, o?: CallOptions) => this.call<T>('PATCH', p, { json, ...o });
  delete = <T = any>(p: string, o?: CallOptions) => this.call<T>('DELETE', p, o);

  /** Every row of every table, read through a separate connection: to prove a request changed nothing. */
  snapshot(): Record<string, unknown[]> {
    const sqlite = new Database(path.join(this.dataDir, 'shelf-audit.sqlite'), { readonly: true });
    try {
      const tables = sqlite
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .all() as Array<{ name: string }>;
      return Object.fromEntries(tables.map(({ name }) => [name, sqlite.prepare(`SELECT * FROM "${name}"`).all()]));
    } finally {
      sqlite.close();
    }
  }
}

export async function startTestServer(): Promise<TestServer> {
  return new TestServer().start();
}

/** Follows `next` from `firstUrl` to the end; returns every page body. */
export async function walkPages(t: TestServer, firstUrl: string): Promise<any[]> {
  const pages: any[] = [];
  let url: string | null = firstUrl;
  while (url) {
    const res: ApiResponse = await t.get(url);
    if (res.status !== 200) throw new Error(`GET ${url} -> ${res.status} ${res.text}`);
    pages.push(res.body);
    url = res.body.next;
    if (pages.length > 10_000) throw new Error('pagination does not end');
  }
  return pages;
}
