// Where the shipped ONNX models live, whichever way the app runs: a packaged Electron app keeps them in
// process.resourcesPath/models; from the TS sources (vitest) and from dist/ (node) it is the repository's
// models/ folder, found by walking up from this module (the two layouts sit at different depths).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The path of models/`file`; the environment variable `envVar`, when set, overrides it. */
export function findModelFile(file: string, envVar: string): string {
  const env = process.env[envVar];
  if (env) return env;
  const resources = (process as NodeJS.Process & { resourcesPath?: string }).resourcesPath;
  if (resources) {
    const packaged = path.join(resources, 'models', file);
    if (existsSync(packaged)) return packaged;
  }
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'models', file);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`model ${file} not found (set ${envVar})`);
}
