// The indexes the screens' first pages read (migration 0022, and the name indexes of 0013) and the
// outbox's by record (0023, the read-only check of what arrived by sync): present on SQLite and
// PostgreSQL, and on SQLite the plans of those queries read them instead of sorting or scanning a table.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase, openDatabaseTarget, type OpenDatabase } from '../../main/server/storage/database.js';
import type { Database } from '../../main/server/storage/schema.js';
import { PgCluster } from '../../scripts/pg-cluster.mjs';

const INDEXES = ['visits_started', 'reports_visit', 'skus_name', 'brands_name', 'displays_name', 'planograms_name', 'outbox_record'];

async function sqliteIndexes(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(db);
  return rows.map((r) => r.name);
}

async function plan(db: Kysely<Database>, query: string): Promise<string> {
  const { rows } = await sql<{ detail: string }>`explain query plan ${sql.raw(query)}`.execute(db);
  return rows.map((r) => r.detail).join('; ');
}

describe('the screens’ indexes', () => {
  it('SQLite: exist, and the first pages read them without sorting', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-screen-orders-'));
    const database = await openDatabase(dir);
    try {
      expect(await sqliteIndexes(database.db)).toEqual(expect.arrayContaining(INDEXES));
      // The visits list, newest first, ties in creation order; the SKU list by name.
      const visits = await plan(database.db, 'select data_id from visits order by started_date desc, data_id limit 20');
      expect(visits).toContain('visits_started');
      expect(visits).not.toContain('TEMP B-TREE');
      const skus = await plan(database.db, 'select data_id from skus order by name, data_id limit 20');
      expect(skus).toContain('skus_name');
      expect(skus).not.toContain('TEMP B-TREE');
      expect(await plan(database.db, "select * from reports where visit_id = 'v'")).toContain('reports_visit');
      expect(await plan(database.db, "select distinct record_id from outbox where entity = 'scene_annotation' and record_id in ('a', 'b')")).toContain('outbox_record');
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: exist', async () => {
    const cluster = new PgCluster();
    let database: OpenDatabase | undefined;
    try {
      await cluster.start();
      database = await openDatabaseTarget({ kind: 'postgres', connectionString: cluster.url });
      const { rows } = await sql<{ indexname: string; indexdef: string }>`select indexname, indexdef from pg_indexes`.execute(database.db);
      expect(rows.map((r) => r.indexname)).toEqual(expect.arrayContaining(INDEXES));
      expect(rows.find((r) => r.indexname === 'visits_started')?.indexdef).toMatch(/started_date DESC, data_id/);
    } finally {
      await database?.close();
      cluster.stop();
    }
  }, 60_000);
});
