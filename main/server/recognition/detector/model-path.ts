// Where the shipped detector model lives, whichever way the app runs: a packaged Electron app keeps it in
// process.resourcesPath/models; from the TS sources (vitest) and from dist/ (node) it is the repository's
// models/ folder, found by walking up from this module (the two layouts sit at different depths).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const MODEL_FILE = 'shelf-detector.onnx';

export function defaultModelPath(): string {
  const env = process.env.SHELF_DETECTOR_MODEL;
  if (env) return env;
  const resources = (process as NodeJS.Process & { resourcesPath?: string }).resourcesPath;
  if (resources) {
    const packaged = path.join(resources, 'models', MODEL_FILE);
    if (existsSync(packaged)) return packaged;
  }
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'models', MODEL_FILE);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`shelf detector model ${MODEL_FILE} not found (set SHELF_DETECTOR_MODEL or pass modelPath)`);
}
