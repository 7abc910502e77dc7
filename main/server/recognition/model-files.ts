// Where the shipped ONNX models live, whichever way the app runs: a packaged Electron app keeps them in
// process.resourcesPath/models; from the TS sources (vitest) and from dist/ (node) it is the repository's
// models/ folder, found by walking up from this module (the two layouts sit at different depths).
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The path of models/`file`, or `override` when one is given (a setting: config/config.ts). */
export function findModelFile(file: string, override?: string | null): string {
  if (override) return override;
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
  throw new Error(`model ${file} not found`);
}

const digests = new Map<string, string>();
const reading = new Map<string, Promise<string>>();

/** The SHA-256 (hex) of a model file, read once per process. */
export function modelDigest(file: string): string {
  let d = digests.get(file);
  if (!d) {
    d = createHash('sha256').update(readFileSync(file)).digest('hex');
    digests.set(file, d);
  }
  return d;
}

/**
 * modelDigest without holding the event loop: the file is read and hashed a chunk at a time, so
 * requests are answered meanwhile (the server computes it as it starts; /info waits for it).
 */
export function modelDigestAsync(file: string): Promise<string> {
  const known = digests.get(file);
  if (known) return Promise.resolve(known);
  let running = reading.get(file);
  if (!running) {
    running = new Promise<string>((resolve, reject) => {
      const hash = createHash('sha256');
      createReadStream(file, { highWaterMark: 1 << 20 })
        .on('data', (chunk) => hash.update(chunk))
        .on('error', reject)
        .on('end', () => {
          const d = hash.digest('hex');
          digests.set(file, d);
          resolve(d);
        });
    }).finally(() => reading.delete(file));
    reading.set(file, running);
  }
  return running;
}

/**
 * A model's version as the app reports it (About box, Settings, /api/app/v1/info/): the file's name and
 * the start of its SHA-256, so two builds with different weights never report the same version and
 * support can tell exactly which weights a laptop runs. Null when the file is missing or unreadable.
 */
export function modelVersion(locate: () => string): string | null {
  try {
    const file = locate();
    return `${path.basename(file, '.onnx')} sha256:${modelDigest(file).slice(0, 12)}`;
  } catch {
    return null;
  }
}

/** modelVersion, its digest read by modelDigestAsync. */
export async function modelVersionAsync(locate: () => string): Promise<string | null> {
  try {
    const file = locate();
    return `${path.basename(file, '.onnx')} sha256:${(await modelDigestAsync(file)).slice(0, 12)}`;
  } catch {
    return null;
  }
}
