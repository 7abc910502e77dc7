// Serialised list records (and by-id bodies) kept while the database is unchanged. The page cache (page-cache.ts) only
// helps a client that asks for the same page again; clients walking a catalog ask for other pages,
// and a page's cost is mostly the database materialising its rows as objects and their
// serialisation. So a list's order is kept here as its data_ids (a page is a slice of it, its count
// the length), and its records serialised to bytes, once per database change stamp
// (storage/change-stamp.ts); only the records missing are read, and a page is the records' bytes
// copied once into the body. What is kept is kept per scope: a table, for a resource whose records
// show that table's rows alone (under the table's stamp, which only a write to that table, or
// another process's commit, moves: storage/change-stamp.ts), or the whole database (under its
// stamp, which any write moves). A write then retires only the scopes it could change: a brand POST
// leaves the SKUs' records and orders kept.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { ChangeStamp, TableStamp } from '../storage/change-stamp.js';

declare module 'fastify' {
  interface FastifyInstance {
    recordCache: RecordCache;
    rowVersionCache: RowVersionCache;
  }
}

/** Bound on the serialised records kept, in bytes (10,000 SKUs are ~2.3 M). */
export const RECORD_CACHE_BYTES = 32 * 1024 * 1024;

/** Lists longer than this are paged by the database (OFFSET) rather than kept as an id order. */
export const ORDER_MAX_IDS = 100_000;
/** Bound on the list orders kept (one per table, filter, search and ordering asked for). */
const ORDERS_KEPT = 256;

/** What is kept under one stamp, served to the requests that read that stamp. */
export interface RecordCacheView {
  /**
   * Every data_id of the list named `key` (table, filters, search, ordering), in order; null when
   * there are more than ORDER_MAX_IDS. `compute` reads it (null when too long).
   */
  order(key: string, compute: () => Promise<number[] | null>): Promise<number[] | null>;
  /** The order of `key` if it was computed (undefined if not, null when too long), without computing it. */
  keptOrder(key: string): number[] | null | undefined;
  /**
   * Whether a page of the list `key` was asked for before under this stamp (and notes that it now
   * was): the whole order pays only for a list read more than once before the next write retires it.
   */
  askedBefore(key: string): boolean;
  /** How many records the list named `key` has; `compute` counts them. */
  count(key: string, compute: () => Promise<number>): Promise<number>;
  /**
   * The serialised records of `ids` (data_ids of `table`, in order), or null when a record is gone
   * or a write landed while reading the missing ones: then the caller reads the page the plain way.
   * `fetch` reads and serialises the records not kept.
   */
  records(table: string, ids: number[], fetch: (missing: number[]) => Promise<Map<number, string>>): Promise<Buffer[] | null>;
  /**
   * A whole response body named `key` (a by-id read: its path and id), serialised by `compute`; what
   * compute throws (a 404) is thrown and not kept.
   */
  body(key: string, compute: () => Promise<string>): Promise<Buffer>;
}

export interface RecordCache {
  /**
   * What is kept under `stamp` (the request's: http/request-stamp.ts) for `table` (its stamp:
   * requestTableStamp), or for the whole database (its stamp: requestStamp) when no table is given;
   * null: nothing can be kept.
   */
  view(stamp: string | null, table?: string): RecordCacheView | null;
}

/** Everything kept under one stamp, for one scope. */
interface Generation {
  stamp: string;
  view: RecordCacheView;
  /** The bytes it keeps, of the cache's bound. */
  bytes: number;
}

/** The scope of what is kept for the whole database (no table name is this). */
const WHOLE = '';

export function createRecordCache(changeStamp: ChangeStamp, maxBytes = RECORD_CACHE_BYTES, tableStamp: TableStamp = () => changeStamp()): RecordCache {
  const current = new Map<string, Generation>();
  let bytes = 0;
  const generation = (scope: string, stamp: string): Generation => {
    const tables = new Map<string, Map<number, Buffer>>();
    const orders = new Map<string, number[] | null>();
    const computing = new Map<string, Promise<number[] | null>>();
    const counts = new Map<string, number>();
    const asked = new Set<string>();
    const bodies = new Map<string, Buffer>();
    /** What was computed is kept only if the scope is still as it was at `stamp`. */
    const still = async () => (await (scope === WHOLE ? changeStamp() : tableStamp(scope))) === stamp && current.get(scope) === self;
    const keep = (n: number) => {
      self.bytes += n;
      bytes += n;
    };
    const view: RecordCacheView = {
      order(key, compute) {
        const known = orders.get(key);
        if (known !== undefined) return Promise.resolve(known);
        // One computation per order: the warm-up's and a request's for the same list share it.
        let running = computing.get(key);
        if (!running) {
          running = (async () => {
            const ids = await compute();
            if (await still()) {
              if (orders.size >= ORDERS_KEPT) orders.delete(orders.keys().next().value!);
              orders.set(key, ids);
            }
            return ids;
          })().finally(() => computing.delete(key));
          computing.set(key, running);
        }
        return running;
      },
      keptOrder: (key) => orders.get(key),
      askedBefore(key) {
        if (asked.has(key)) return true;
        if (asked.size >= ORDERS_KEPT) asked.clear();
        asked.add(key);
        return false;
      },
      async count(key, compute) {
        const known = orders.get(key)?.length ?? counts.get(key);
        if (known !== undefined) return known;
        const n = await compute();
        if (await still()) {
          if (counts.size >= ORDERS_KEPT) counts.delete(counts.keys().next().value!);
          counts.set(key, n);
        }
        return n;
      },
      async records(table, ids, fetch) {
        let kept = tables.get(table);
        if (!kept) tables.set(table, (kept = new Map()));
        const out: Buffer[] = new Array(ids.length);
        const missing: number[] = [];
        for (let i = 0; i < ids.length; i++) {
          const json = kept.get(ids[i]);
          if (json === undefined) missing.push(ids[i]);
          else out[i] = json;
        }
        if (missing.length === 0) return out;
        const fetched = await fetch(missing);
        // A write while fetching: what was read may be newer than the records kept.
        if (!(await still())) return null;
        for (let i = 0; i < ids.length; i++) {
          if (out[i] !== undefined) continue;
          const json = fetched.get(ids[i]);
          if (json === undefined) return null;
          out[i] = Buffer.from(json);
          if (bytes + out[i].length <= maxBytes) {
            kept.set(ids[i], out[i]);
            keep(out[i].length);
          }
        }
        return out;
      },
      async body(key, compute) {
        const known = bodies.get(key);
        if (known !== undefined) return known;
        const body = Buffer.from(await compute());
        if (bytes + body.length <= maxBytes && (await still())) {
          bodies.set(key, body);
          keep(body.length);
        }
        return body;
      },
    };
    const self: Generation = { stamp, view, bytes: 0 };
    return self;
  };
  return {
    view(stamp, table) {
      if (stamp === null) return null;
      const scope = table ?? WHOLE;
      let kept = current.get(scope);
      if (kept?.stamp !== stamp) {
        // A request still holding the older generation's view reads what it kept, and keeps nothing more.
        bytes -= kept?.bytes ?? 0;
        current.set(scope, (kept = generation(scope, stamp)));
      }
      return kept.view;
    },
  };
}

/**
 * Serialised records kept with their row's version (PostgreSQL's xmin: domain/resource.ts
 * rowVersions), across stamps. On PostgreSQL the visits' stamp is the whole snapshot (devices' pushes
 * write them concurrently: migration 0027), so while devices push, every commit retired the visits'
 * records and each visit page read and serialised its 50 rows again (docs/api.md, fifth pass). A row's
 * version changes with every committed change to it, so a record kept under the version its row has
 * now is that row now: a page's missing records cost a read of their versions, and only the changed
 * ones are read and serialised.
 */
export interface RowVersionCache {
  /**
   * The serialised records of `ids` (data_ids of `table`) that exist: `versions` reads their versions
   * now; those kept under the same version are answered from memory, `fetch` reads the others with
   * their versions, and `serialise` makes their bodies.
   */
  read(
    table: string,
    ids: number[],
    versions: (ids: number[]) => Promise<Map<number, string>>,
    fetch: (ids: number[]) => Promise<Map<number, { row: Record<string, unknown>; version: string }>>,
    serialise: (row: Record<string, unknown>) => string,
  ): Promise<Map<number, string>>;
}

/**
 * xmin is a 32-bit transaction id that wraps around after 2^32 transactions; what is kept is dropped
 * this often (ms), long before any version could come back for the same row.
 */
const ROW_VERSIONS_KEPT_MS = 10 * 60 * 1000;

export function createRowVersionCache(maxBytes = RECORD_CACHE_BYTES, keptMs = ROW_VERSIONS_KEPT_MS): RowVersionCache {
  let tables = new Map<string, Map<number, { version: string; json: string }>>();
  let bytes = 0;
  let since = performance.now();
  return {
    async read(table, ids, versions, fetch, serialise) {
      if (performance.now() - since > keptMs) {
        tables = new Map();
        bytes = 0;
        since = performance.now();
      }
      let kept = tables.get(table);
      if (!kept) tables.set(table, (kept = new Map()));
      const out = new Map<number, string>();
      let stale: number[] = [];
      // None of them kept (a cold start): their versions would tell nothing, the rows are read at once.
      if (!ids.some((id) => kept.has(id))) stale = ids;
      else {
        for (const [id, version] of await versions(ids)) {
          const known = kept.get(id);
          if (known?.version === version) out.set(id, known.json);
          else stale.push(id);
        }
        if (stale.length === 0) return out;
      }
      for (const [id, { row, version }] of await fetch(stale)) {
        const json = serialise(row);
        out.set(id, json);
        const old = kept.get(id);
        if (old) {
          bytes -= old.json.length;
          kept.delete(id);
        }
        // Oldest first within a table (a Map keeps insertion order), the tables in the order first read.
        for (const t of tables.values()) {
          for (const [oldId, entry] of t) {
            if (bytes + json.length <= maxBytes) break;
            bytes -= entry.json.length;
            t.delete(oldId);
          }
        }
        if (json.length <= maxBytes) {
          kept.set(id, { version, json });
          bytes += json.length;
        }
      }
      return out;
    },
  };
}

export interface RecordCacheOptions {
  maxBytes?: number;
}

/**
 * `app.recordCache`. Its stamps are the request stamp plugin's: a route asks for the view of the stamp
 * its request read (`requestStamp`), and what it computes is kept only if a fresh read still agrees.
 */
export const recordCachePlugin = fp(
  async (app: FastifyInstance, options: RecordCacheOptions) => {
    app.decorate('recordCache', createRecordCache(app.changeStamp, options.maxBytes, app.tableStamp));
    app.decorate('rowVersionCache', createRowVersionCache(options.maxBytes));
  },
  { name: 'shelf-audit-record-cache', dependencies: ['shelf-audit-request-stamp'] },
);
