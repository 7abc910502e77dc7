// The one HTTP client of the renderer: same-origin relative URLs (or the bridge's base URL),
// `Authorization: Token <key>`, JSON bodies, DRF errors turned into ApiError.
import { ApiError, parseErrorBody } from './errors';
import type { Page } from './types';

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  query?: Query;
  json?: unknown;
  form?: FormData;
  signal?: AbortSignal;
}

export interface ClientEvents {
  /** Called after every request: whether the server answered at all, and its status. */
  onResponse?(reached: boolean, status: number): void;
}

export function buildPath(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, String(value));
  }
  const search = params.toString();
  if (!search) return path;
  return `${path}${path.includes('?') ? '&' : '?'}${search}`;
}

/** `next` links are absolute URLs of the server that built them; keep only path and query. */
export function relativeLink(link: string): string {
  const url = new URL(link, 'http://placeholder.invalid');
  return `${url.pathname}${url.search}`;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string | null,
    private readonly events: ClientEvents = {},
  ) {}

  /** The address of a path on the server; absolute URLs (e.g. an upload's `url`) pass through. */
  url(path: string): string {
    if (/^[a-z][a-z0-9+.-]*:/i.test(path)) return path;
    return `${this.baseUrl}${path}`;
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.token) headers.Authorization = `Token ${this.token}`;
    let body: BodyInit | undefined;
    if (options.form) body = options.form;
    else if (options.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    let response: Response;
    try {
      response = await fetch(this.url(buildPath(path, options.query)), {
        method,
        headers,
        body,
        signal: options.signal,
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      this.events.onResponse?.(false, 0);
      throw new ApiError(0, (error as Error).message || 'network error');
    }
    this.events.onResponse?.(true, response.status);
    const text = await response.text();
    let parsed: unknown = null;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (!response.ok) {
      throw parseErrorBody(response.status, parsed, `${response.status} ${response.statusText}`.trim());
    }
    return parsed as T;
  }

  /** Raw bytes of a server address (images), with the token. */
  async fetchBlob(address: string): Promise<Blob> {
    const headers: Record<string, string> = {};
    if (this.token) headers.Authorization = `Token ${this.token}`;
    let response: Response;
    try {
      response = await fetch(address, { headers });
    } catch (error) {
      this.events.onResponse?.(false, 0);
      throw new ApiError(0, (error as Error).message || 'network error');
    }
    if (!response.ok) throw new ApiError(response.status, `${response.status} ${response.statusText}`.trim());
    return response.blob();
  }

  get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
    return this.request<T>('GET', path, { query, signal });
  }

  post<T>(path: string, json?: unknown): Promise<T> {
    return this.request<T>('POST', path, { json: json ?? {} });
  }

  patch<T>(path: string, json: unknown): Promise<T> {
    return this.request<T>('PATCH', path, { json });
  }

  put<T>(path: string, json: unknown): Promise<T> {
    return this.request<T>('PUT', path, { json });
  }

  delete<T = unknown>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }

  postForm<T>(path: string, form: FormData): Promise<T> {
    return this.request<T>('POST', path, { form });
  }

  page<T>(path: string, query?: Query, signal?: AbortSignal): Promise<Page<T>> {
    return this.get<Page<T>>(path, query, signal);
  }

  /** Every item of a list, walking `next` to the end. */
  async all<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T[]> {
    const items: T[] = [];
    let next: string | null = buildPath(path, { limit: 500, ...query });
    while (next) {
      const page: Page<T> = await this.get<Page<T>>(next, undefined, signal);
      items.push(...page.results);
      next = page.next ? relativeLink(page.next) : null;
    }
    return items;
  }
}
