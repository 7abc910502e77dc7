// Work that the first requests of a freshly started server would otherwise do, done as soon as it
// listens: the app's page is still loading its scripts then (hundreds of milliseconds in which the
// server is idle), so its first screen's requests find the lists' orders computed, the database's
// pages read and the model digests known. Each task runs in a turn of its own, so a request that
// arrives meanwhile waits for one task at most. Nothing runs without listen() (tests that inject),
// and close() waits for the task running.
//
// The request path itself is warmed too (`warmUpRequests`): a fresh process runs its code (routing,
// hooks, the key check, the SQL builder, serialisation) in V8's interpreter, and compiles each route's
// schemas, on first use; its first requests cost 2 to 5 times the CPU of later ones (docs/api.md,
// "Cold start", issue 40's fourth pass). While the window's page loads (app.ts: until a client's
// first API request) the warm-up sends the lists' pages and records through `app.inject` (the whole
// Fastify path but the socket), up to 400, one a turn, under an internal key that lives in memory for
// that time only (http/auth.ts, `internalKey`). The headless server (`serve`) sends them before it
// listens instead, thousands of them (`warmUpBeforeListen`, server.ts): hundreds after listening
// left the first seconds under load as slow as none (V8 optimises after thousands), and a load
// that arrives the moment the server listens ends the after-listen warm-up at once.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { InternalKey } from './auth.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Adds a task run once the server listens, in the order added; its failure is only logged. */
    warmUp(name: string, task: () => Promise<unknown>): void;
    /** The warm-up's tasks with their times, once all ran (none before listen(), unless run by warmUpBeforeListen). */
    warmedUp(): Promise<WarmUpRun[]>;
    /** A list the screens open on, for `warmUpRequests`: its URL (prefix included) and its first ordering. */
    warmUpList(list: WarmUpList): void;
    /** Sends the registered lists' pages and records through the request path (see the top of the file). */
    warmUpRequests(options?: WarmUpRequestOptions): Promise<WarmUpRequestsRun>;
    /** Readies the app, runs the tasks, then sends `requests` of them one at a time, timed: before listen() (server.ts). */
    warmUpBeforeListen(requests: number): Promise<WarmedUpBeforeListen>;
  }
}

export interface WarmUpList {
  /** The collection's URL, with its trailing slash: `/api/v1.5/sku/`. */
  url: string;
  /** The `?ordering=` its screens open it on, if any. */
  ordering?: string;
  /** Whether `url + id + '/'` reads one record. */
  byId: boolean;
}

export interface WarmUpRun {
  name: string;
  ms: number;
  /** The process's CPU time meanwhile (every thread's: V8 compiles and collects on its own). */
  cpuMs: number;
  /** What the task resolved with (the request warm-up's WarmUpRequestsRun). */
  result?: unknown;
  error?: unknown;
}

export const warmUpPlugin = fp(
  async (app: FastifyInstance) => {
    const tasks: Array<{ name: string; task: () => Promise<unknown> }> = [];
    const lists: WarmUpList[] = [];
    let closing = false;
    app.decorate('warmUpList', (list: WarmUpList) => void lists.push(list));
    app.decorate('warmUpRequests', (options?: WarmUpRequestOptions) => warmUpRequests(app, lists, { ...options, stop: () => closing || options?.stop?.() === true }));
    let running: Promise<WarmUpRun[]> | undefined;
    const timed = async (name: string, task: () => Promise<unknown>, runs: WarmUpRun[]) => {
      const t = performance.now();
      const cpu = process.cpuUsage();
      const cpuMs = () => {
        const used = process.cpuUsage(cpu);
        return (used.user + used.system) / 1000;
      };
      try {
        const result = await task();
        runs.push({ name, ms: performance.now() - t, cpuMs: cpuMs(), result });
      } catch (error) {
        runs.push({ name, ms: performance.now() - t, cpuMs: cpuMs(), error });
        app.log.warn({ err: error }, `warm-up ${name} failed`);
      }
    };
    app.decorate('warmUp', (name: string, task: () => Promise<unknown>) => void tasks.push({ name, task }));
    let before: WarmUpRun[] | undefined;
    app.decorate('warmUpBeforeListen', async (requests: number) => {
      // inject() readies the app too; here so that the plugins' start is not timed as the warm-up's.
      await app.ready();
      // The tasks too (the lists' data, the model digests, every schema compiled): once listening,
      // they would share the cores with the first clients' requests.
      before = [];
      for (const { name, task } of tasks) await timed(name, task, before);
      const runs: WarmUpRun[] = [];
      await timed('requests before listening', () => app.warmUpRequests({ requests }), runs);
      before.push(...runs);
      const [run] = runs;
      const sent = (run.result as WarmUpRequestsRun | undefined) ?? { sent: 0, failed: 0 };
      return { ...sent, ms: run.ms, cpuMs: run.cpuMs, ...(run.error !== undefined ? { error: run.error } : {}) };
    });
    app.addHook('onListen', async () => {
      if (before) {
        running = Promise.resolve(before);
        return;
      }
      running = (async () => {
        const runs: WarmUpRun[] = [];
        for (const { name, task } of tasks) {
          await new Promise((resolve) => setImmediate(resolve));
          if (closing) break;
          await timed(name, task, runs);
        }
        app.log.debug({ runs }, 'warm-up done');
        return runs;
      })();
    });
    app.addHook('onClose', async () => {
      closing = true;
      await running;
    });
    app.decorate('warmedUp', () => running ?? Promise.resolve([]));
  },
  { name: 'shelf-audit-warm-up' },
);

/** Requests the request warm-up sends at most (app.ts: after listening, until a client's first API request). */
export const WARM_UP_REQUESTS = 400;

export interface WarmUpRequestOptions {
  /** Default WARM_UP_REQUESTS. */
  requests?: number;
  /** Checked before each request: true ends the warm-up early. */
  stop?: () => boolean;
}

export interface WarmUpRequestsRun {
  /** Requests sent, and those answered other than 200 (a list that is not there, a key refused). */
  sent: number;
  failed: number;
}

/** The requests sent before listening, with the time and CPU they took (and the error that ended them, if one did). */
export interface WarmedUpBeforeListen extends WarmUpRequestsRun {
  ms: number;
  cpuMs: number;
  error?: unknown;
}

async function warmUpRequests(app: FastifyInstance, lists: readonly WarmUpList[], { requests = WARM_UP_REQUESTS, stop = () => false }: WarmUpRequestOptions): Promise<WarmUpRequestsRun> {
  const run: WarmUpRequestsRun = { sent: 0, failed: 0 };
  if (lists.length === 0) return run;
  // Read-only: the warm-up only reads, and a key that can do no more cannot be misused for more.
  const key: InternalKey = app.internalKey('warm-up', 'read-only');
  const headers = { authorization: `Token ${key.token}` };
  // One request a turn: a client's request that arrives meanwhile waits for one of them at most
  // (cold, tens of milliseconds on a loaded laptop), not for a batch.
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const get = async (url: string): Promise<unknown> => {
    run.sent++;
    const answer = await app.inject({ method: 'GET', url, headers });
    if (answer.statusCode !== 200) {
      run.failed++;
      return undefined;
    }
    return answer.json();
  };
  try {
    // Each list's count and first ids, as its screen's first request reads them.
    const known = [];
    for (const list of lists) {
      await turn();
      if (stop() || run.sent >= requests) return run;
      const first = (await get(`${list.url}?limit=100${list.ordering ? `&ordering=${encodeURIComponent(list.ordering)}` : ''}`)) as { count?: unknown; results?: Array<{ id?: unknown }> } | undefined;
      if (!first || typeof first.count !== 'number') continue;
      const ids = (first.results ?? []).map((r) => r.id).filter((id): id is string => typeof id === 'string');
      known.push({ ...list, count: first.count, ids });
    }
    // Nothing to read yet (a new install, a test's fresh folder): the empty pages exercise little of
    // the path a load takes, and a start that waits for them (`serve`) would wait for nothing.
    if (!known.some((list) => list.count > 0)) return run;
    // Pages at random offsets (as a client paging or scrolling asks) and records by id, each list in turn.
    const urls = function* () {
      for (let round = 0; ; round++) {
        for (const list of known) {
          const offset = Math.floor(Math.random() * Math.max(list.count - 99, 1));
          yield `${list.url}?limit=100&offset=${offset}${round % 2 && list.ordering ? `&ordering=${encodeURIComponent(list.ordering)}` : ''}`;
          if (list.byId && list.ids.length) yield `${list.url}${encodeURIComponent(list.ids[round % list.ids.length])}/`;
        }
      }
    }();
    while (run.sent < requests) {
      await turn();
      if (stop()) break;
      await get(urls.next().value as string);
    }
    return run;
  } finally {
    key.revoke();
  }
}
