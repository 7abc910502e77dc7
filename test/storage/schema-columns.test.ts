// A table is declared twice by necessity: its columns by the migrations (what the database holds) and
// its row type in storage/schema.ts (what the code may read and write). This test holds the two to one
// declaration's worth of truth: every table of `Database` has exactly the columns its row interface
// names (inherited ones included), read from storage/schema.ts with the TypeScript compiler and from a
// freshly migrated database, so a migration without its row type, or the reverse, fails here.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../main/server/storage/database.js';

const SCHEMA = path.join(process.cwd(), 'main/server/storage/schema.ts');

/** Table name -> the column names its row interface declares, with those of the interfaces it extends. */
function declaredColumns(): Map<string, string[]> {
  const source = ts.createSourceFile(SCHEMA, ts.sys.readFile(SCHEMA)!, ts.ScriptTarget.Latest, true);
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node)) interfaces.set(node.name.text, node);
  });
  const columnsOf = (name: string): string[] => {
    const decl = interfaces.get(name);
    if (!decl) throw new Error(`interface ${name} is not declared in storage/schema.ts`);
    const inherited = (decl.heritageClauses ?? []).flatMap((h) => h.types.flatMap((t) => columnsOf(t.expression.getText(source))));
    const own = decl.members.filter(ts.isPropertySignature).map((m) => m.name.getText(source));
    return [...new Set([...inherited, ...own])];
  };
  const tables = new Map<string, string[]>();
  for (const member of interfaces.get('Database')!.members.filter(ts.isPropertySignature)) {
    const type = member.type!.getText(source);
    tables.set(member.name.getText(source), columnsOf(type));
  }
  return tables;
}

let database: OpenDatabase | undefined;
const dir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-schema-'));
afterAll(async () => {
  await database?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('row types and migrations', () => {
  it('agree on every table and column', async () => {
    const declared = declaredColumns();
    expect(declared.size).toBeGreaterThan(30);
    database = await openDatabase(dir);
    const { rows: tables } = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%'`.execute(database.db);
    const migrated = new Map<string, string[]>();
    for (const { name } of tables) {
      const { rows } = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${name})`.execute(database.db);
      migrated.set(name, rows.map((r) => r.name));
    }
    // Tables the migrations make and no code reads through Kysely's types may exist (none today):
    // listed here, they would be visible; every declared table must exist with exactly its columns.
    expect([...declared.keys()].filter((t) => !migrated.has(t))).toEqual([]);
    for (const [table, columns] of declared) {
      expect([...(migrated.get(table) ?? [])].sort(), table).toEqual([...columns].sort());
    }
    expect([...migrated.keys()].filter((t) => !declared.has(t)).sort()).toEqual([]);
  });
});
