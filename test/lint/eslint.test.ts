// ESLint in `npm test` (eslint.config.js): typescript-eslint's rules, the React hooks rules in the
// renderer, and the import boundaries that keep the architecture (no HTTP in the domain; only types
// from the server in the renderer). The whole tree must lint clean, and each boundary rule must catch
// a file that crosses it, so the config cannot quietly stop checking.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function errorsIn(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.filter((m) => m.severity === 2).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('ESLint', () => {
  it('finds no errors in the project', async () => {
    const results = await eslint.lintFiles(['.']);
    const errors = results.flatMap((r) => r.messages.filter((m) => m.severity === 2).map((m) => `${r.filePath}:${m.line} ${m.ruleId}: ${m.message}`));
    expect(errors).toEqual([]);
    expect(results.length).toBeGreaterThan(200);
  }, 180_000);

  it('keeps HTTP and Fastify out of the domain', async () => {
    expect(await errorsIn("import fastify from 'fastify';\nexport const x = fastify;\n", 'main/server/domain/example.ts')).toEqual([
      expect.stringMatching(/^no-restricted-imports: .*no Fastify/),
    ]);
    expect(await errorsIn("import { envelope } from '../http/pagination.js';\nexport const x = envelope;\n", 'main/server/domain/example.ts')).toEqual([
      expect.stringMatching(/^no-restricted-imports: .*no HTTP layer/),
    ]);
    expect(await errorsIn("import { x } from '../routes/crud.js';\nexport const y = x;\n", 'main/server/domain/example.ts')).toHaveLength(1);
    // The routes may use Fastify.
    expect(await errorsIn("import fastify from 'fastify';\nexport const x = fastify;\n", 'main/server/routes/example.ts')).toEqual([]);
  });

  it("keeps the scene's queries in scenes/queries.ts", async () => {
    const code = "import type { Kysely } from 'kysely';\nexport const f = (db: Kysely<any>) => db.selectFrom('scenes').selectAll().execute();\n";
    expect(await errorsIn(code, 'main/server/scenes/example.ts')).toEqual([expect.stringMatching(/^no-restricted-syntax: .*scenes\/queries\.ts/)]);
    expect(await errorsIn(code.replace('selectFrom', 'updateTable'), 'main/server/scenes/jobs/example.ts')).toHaveLength(1);
    expect(await errorsIn(code, 'main/server/scenes/queries.ts')).toEqual([]);
  });

  it("keeps the recognition engine from calling the scene's code", async () => {
    const code = "import { enqueueJob } from '../scenes/jobs/queue.js';\nexport const x = enqueueJob;\n";
    expect(await errorsIn(code, 'main/server/recognition/example.ts')).toEqual([expect.stringMatching(/^no-restricted-imports: .*calls none of it/)]);
    expect(await errorsIn(code, 'main/server/routes/example.ts')).toEqual([]);
  });

  it('lets the renderer import only types from the server', async () => {
    const file = 'renderer/src/api/example.ts';
    expect(await errorsIn("import type { SkuItem } from '../../../main/server/schemas/skus.js';\nexport type X = typeof SkuItem;\n", file)).toEqual([]);
    expect(await errorsIn("import { SkuItem } from '../../../main/server/schemas/skus.js';\nexport const x = SkuItem;\n", file)).toEqual([
      expect.stringMatching(/only types from the server/),
    ]);
    expect(await errorsIn("import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n", file)).toEqual([expect.stringMatching(/browser/)]);
  });

  it('applies the rules of hooks in the renderer', async () => {
    const code = "import { useState } from 'react';\nexport function C(p: { on: boolean }) {\n  if (p.on) useState(0);\n  return null;\n}\n";
    expect(await errorsIn(code, 'renderer/src/components/Example.tsx')).toEqual([expect.stringMatching(/^react-hooks\/rules-of-hooks/)]);
  });
});
