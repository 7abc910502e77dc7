// Types of bench/overview-seed.mjs for the tests that seed with it: rows by table name, as inserted.
import type { Kysely } from 'kysely';
import type { Database } from '../main/server/storage/schema.js';

export type OverviewTables = Record<string, Array<Record<string, any>>>;

export function prng(seed: number): () => number;
export function overviewData(options?: {
  visits?: number;
  scenesPerVisit?: number;
  exactScenes?: boolean;
  shops?: number;
  agents?: number;
  skus?: number;
  displays?: number;
  days?: number;
  start?: string;
  seed?: number;
}): OverviewTables;
export function seedOverview(db: Kysely<Database>, t: OverviewTables): Promise<void>;
