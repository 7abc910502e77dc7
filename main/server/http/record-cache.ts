// Serialised list records kept while the database is unchanged. The page cache (page-cache.ts) only
// helps a client that asks for the same page again; clients walking a catalog ask for other pages,
// and a page's cost was mostly SQLite materialising its rows as objects and their serialisation. So a
// page is read as its count and its records' data_ids (cheap: integers, no row objects), and its
// records come from here, serialised once per database change stamp; only the missing ones are read.
// Any write, by this process or another, changes the stamp and retires every record kept.

declare module 'fastify' {
  interface FastifyInstance {
    recordCache: RecordCache;
  }
}

/** Bound on the serialised records kept, in characters (10,000 SKUs are ~2.3 M). */
export const RECORD_CACHE_CHARS = 32 * 1024 * 1024;

export interface RecordCache {
  /** Whether records can be kept at all (the database tells its changes). */
  active(): boolean;
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
  return {
    active: () => changeStamp() !== null,
    async records(table, ids, fetch) {
      const now = changeStamp();
      if (now === null) return null;
      if (now !== stamp) {
        stamp = now;
        kept = new Map();
        chars = 0;
      }
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
      const current = changeStamp() === now && stamp === now;
      for (let i = 0; i < ids.length; i++) {
        if (out[i] !== undefined) continue;
        const json = fetched.get(ids[i]);
        if (json === undefined) return null;
        out[i] = json;
        if (current && chars + json.length <= maxChars) {
          kept.set(`${table}:${ids[i]}`, json);
          chars += json.length;
        }
      }
      return current ? out : null;
    },
  };
}
