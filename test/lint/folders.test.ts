// The server's folders import each other one way only: a folder that both imports and is imported by
// another is a cycle a reader cannot follow (docs/ARCHITECTURE.md). Computed from the import lines of
// every module under main/server, so a new back edge fails here with the files that make it.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(process.cwd(), 'main', 'server');
const IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** The top folder of a module under main/server ('.' for the files at its root). */
function folderOf(file: string): string {
  const parts = path.relative(ROOT, file).split(path.sep);
  return parts.length > 1 ? parts[0] : '.';
}

function folderEdges(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const rel of readdirSync(ROOT, { recursive: true }) as string[]) {
    if (!rel.endsWith('.ts')) continue;
    const file = path.join(ROOT, rel);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = path.resolve(path.dirname(file), m[1]);
      if (!target.startsWith(ROOT + path.sep)) continue;
      const from = folderOf(file);
      const to = folderOf(target);
      if (from === to) continue;
      const key = `${from} -> ${to}`;
      if (!edges.has(key)) edges.set(key, new Set());
      edges.get(key)!.add(rel);
    }
  }
  return edges;
}

describe('server folders', () => {
  it('never import each other both ways', () => {
    const edges = folderEdges();
    expect(edges.size).toBeGreaterThan(20);
    const twoWay = [...edges.keys()]
      .filter((key) => {
        const [from, to] = key.split(' -> ');
        return edges.has(`${to} -> ${from}`);
      })
      .map((key) => `${key}: ${[...edges.get(key)!].join(', ')}`);
    expect(twoWay).toEqual([]);
  });

  it('keep the recognition engine below the scene', () => {
    const edges = folderEdges();
    expect(edges.has('scenes -> recognition')).toBe(true);
    expect(edges.has('recognition -> scenes')).toBe(false);
  });
});
