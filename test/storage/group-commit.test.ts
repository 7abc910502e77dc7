// Group commit on SQLite (storage/transaction.ts): writes arriving together share one commit, each in
// its own savepoint. One that fails is undone alone and gets its own error; the others are stored;
// each is answered only once its group has committed (another connection already sees it).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { brands } from '../../main/server/domain/catalogs.js';
import { createRecord } from '../../main/server/domain/resource.js';
import { DATABASE_FILE, openDatabase, type OpenDatabase } from '../../main/server/storage/database.js';
import { onCommit, write } from '../../main/server/storage/transaction.js';

let dataDir: string | undefined;
let database: OpenDatabase | undefined;
afterEach(async () => {
  await database?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  database = undefined;
  dataDir = undefined;
});

describe('group commit (SQLite)', () => {
  it('commits writes that arrive together once; a failing one is undone alone; each answered after its commit', async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-group-'));
    database = await openDatabase(dataDir);
    const db = database.db;
    const other = new Database(path.join(dataDir, DATABASE_FILE), { readonly: true });
    const seen = (id: string) => other.prepare('SELECT name FROM brands WHERE id = ?').pluck().get(id);
    const commits: string[][] = [];
    const unsubscribe = onCommit(db, (entities) => commits.push([...entities]));
    try {
      const failure = new Error('refused after writing');
      const writes = Array.from({ length: 10 }, (_, i) =>
        write(db, async (ctx) => {
          const record = await createRecord(ctx, brands, { id: `g${i}`, name: `Group ${i}` });
          if (i === 4) throw failure; // after its row and its outbox row were written
          return record.id;
        }).then(
          // Answered only once committed: a separate connection sees the row by then.
          (id) => ({ id, visible: seen(id as string) }),
          (error: unknown) => ({ error }),
        ),
      );
      const outcomes = await Promise.all(writes);
      expect(outcomes[4]).toEqual({ error: failure });
      for (const [i, o] of outcomes.entries()) if (i !== 4) expect(o).toEqual({ id: `g${i}`, visible: `Group ${i}` });
      // Nothing of the failed write remains, neither its record nor its outbox row.
      expect(seen('g4')).toBeUndefined();
      expect(other.prepare("SELECT count(*) FROM outbox WHERE entity = 'brand'").pluck().get()).toBe(9);
      // Fewer commits than writes: they were grouped (one, unless the machine split them).
      expect(commits.length).toBeGreaterThan(0);
      expect(commits.length).toBeLessThan(9);
      // A write after the group is committed on its own and seen too.
      expect(await write(db, async (ctx) => (await createRecord(ctx, brands, { id: 'after', name: 'After' })).id)).toBe('after');
      expect(seen('after')).toBe('After');
    } finally {
      unsubscribe();
      other.close();
    }
  });

  it('a write alone in its group (no savepoint) that fails is undone and answered with its own error; the next write commits', async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-group-'));
    database = await openDatabase(dataDir);
    const db = database.db;
    const failure = new Error('refused after writing');
    const commits: string[][] = [];
    const unsubscribe = onCommit(db, (entities) => commits.push([...entities]));
    try {
      await expect(
        write(db, async (ctx) => {
          await createRecord(ctx, brands, { id: 'lonely', name: 'Lonely' });
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await db.selectFrom('brands').select('id').where('id', '=', 'lonely').executeTakeFirst()).toBeUndefined();
      expect(await db.selectFrom('outbox').select('seq').execute()).toEqual([]);
      expect(commits).toEqual([]);
      // The transaction was closed: a later write gets its own and commits.
      expect(await write(db, async (ctx) => (await createRecord(ctx, brands, { id: 'next', name: 'Next' })).id)).toBe('next');
      expect(await db.selectFrom('outbox').select('record_id').execute()).toEqual([{ record_id: 'next' }]);
      expect(commits).toEqual([['brand']]);
    } finally {
      unsubscribe();
    }
  });

  it('a write that must be alone is not grouped: its deferred foreign keys do not make a neighbour fail at the commit', async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-group-'));
    database = await openDatabase(dataDir);
    const db = database.db;
    const at = new Date().toISOString();
    const visit = (id: string) => sql`INSERT INTO visits (id, created_at, updated_at) VALUES (${id}, ${at}, ${at})`;
    const scene = (id: string, visitId: string) =>
      sql`INSERT INTO scenes (id, request_id, visit_id, images, options, created_at, updated_at) VALUES (${id}, ${'r-' + id}, ${visitId}, '[]', '{}', ${at}, ${at})`;
    // As a pull does: checks deferred to the commit, a child written before its parent.
    const pull = write(
      db,
      async ({ trx }) => {
        await sql`PRAGMA defer_foreign_keys = ON`.execute(trx);
        await scene('pulled-scene', 'pulled-visit').execute(trx);
        await visit('pulled-visit').execute(trx);
        return 'pulled';
      },
      { alone: true },
    );
    // In the same turn: a write with a broken reference, refused on its own, and a good one.
    const broken = write(db, async ({ trx }) => scene('orphan', 'no-such-visit').execute(trx)).then(
      () => 'stored',
      (error: Error) => error.message,
    );
    const good = write(db, async ({ trx }) => {
      await visit('local-visit').execute(trx);
      return 'local';
    });
    expect(await Promise.all([pull, broken, good])).toEqual(['pulled', expect.stringMatching(/FOREIGN KEY/), 'local']);
    const ids = (await db.selectFrom('scenes').select('id').execute()).map((r) => r.id).sort();
    expect(ids).toEqual(['pulled-scene']);
  });
});
