// Serialised list records kept while the database is unchanged. The page cache (page-cache.ts) only
// helps a client that asks for the same page again; clients walking a catalog ask for other pages,
// and a page's cost was mostly SQLite materialising its rows as objects and their serialisation. So a
// list's order is kept here as its data_ids (a page is a slice of it, its count the length), and its
// records serialised, once per database change stamp; only the records missing are read.
// Any write, by this process or another, changes the stamp and retires every record kept.

declare module 'fastify' {
  interface FastifyInstance {
    recordCache: RecordCache;
  }
}

/** Bound on the serialised records kept, in characters (10,000 SKUs are ~2.3 M). */
export const RECORD_CACHE_CHARS = 32 * 1024 * 1024;

/** Lists longer than this are paged by the database (OFFSET) rather than kept as an id order. */
export const ORDER_MAX_IDS = 100_000;
/** Bound on the list orders kept (one per table, filter, search and ordering asked for). */
const ORDERS_KEPT = 256;

export interface RecordCache {
  /** Whether records can be kept at all (the database tells its changes). */
  active(): boolean;
  /**
   * Every data_id of the list named `key` (table, filters, search, ordering), in order: kept while the
   * database is unchanged; null when there are more than ORDER_MAX_IDS or nothing can be kept.
   * `compute` reads it (null when too long).
   */
  order(key: string, compute: () => Promise<number[] | null>): Promise<number[] | null>;
  /**
   * The serialised records of `ids` (data_ids of `table`, in order), or null when the database cannot
   * tell its changes (PostgreSQL) or a record is gone: then the caller reads the page the plain way.
   * `fetch` reads and serialises the records not kept.
   */
  records(table: string, ids: number[], fetch: (missing: number[]) => Promise<Map<number, string>>): Promise<string[] | null>;
}

export function createRecordCache(changeStamp: () => string | null, maxChars = RECORD_CACHE_CHARS): RecordCache {
  let stamp: string | null = null;
  let kept = new Map<string, string>();
  let chars = 0;
  let orders = new Map<string, number[] | null>();
  /** The current stamp, everything kept under an older one dropped; null: nothing can be kept. */
  const current = (): string | null => {
    const now = changeStamp();
    if (now !== null && now !== stamp) {
      stamp = now;
      kept = new Map();
      chars = 0;
      orders = new Map();
    }
    return now;
  };
  return {
    active: () => changeStamp() !== null,
    async order(key, compute) {
      const now = current();
      if (now === null) return null;
      const known = orders.get(key);
      if (known !== undefined) return known;
      const ids = await compute();
      // Kept only if no write landed while reading it.
      if (changeStamp() === now && stamp === now) {
        if (orders.size >= ORDERS_KEPT) orders.delete(orders.keys().next().value!);
        orders.set(key, ids);
      }
      return ids;
    },
    async records(table, ids, fetch) {
      const now = current();
      if (now === null) return null;
      const out: string[] = new Array(ids.length);
      const missing: number[] = [];
      for (let i = 0; i < ids.length; i++) {
        const json = kept.get(`${table}:${ids[i]}`);
        if (json === undefined) missing.push(ids[i]);
        else out[i] = json;
      }
      if (missing.length === 0) return out;
      const fetched = await fetch(missing);
      // A write while fetching changed the stamp: what was read may be newer than the kept records.
      const unchanged = changeStamp() === now && stamp === now;
      for (let i = 0; i < ids.length; i++) {
        if (out[i] !== undefined) continue;
        const json = fetched.get(ids[i]);
        if (json === undefined) return null;
        out[i] = json;
        if (unchanged && chars + json.length <= maxChars) {
          kept.set(`${table}:${ids[i]}`, json);
          chars += json.length;
        }
      }
      return unchanged ? out : null;
    },
  };
}
