// Where the shipped ONNX models live, whichever way the app runs: a packaged Electron app keeps them in
// process.resourcesPath/models; from the TS sources (vitest) and from dist/ (node) it is the repository's
// models/ folder, found by walking up from this module (the two layouts sit at different depths).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
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

/** Reads and hashes the files it is given (workerData), posting [file, digest or null] for each. */
const DIGEST_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const chunk = Buffer.allocUnsafe(1 << 20);
for (const file of workerData) {
  try {
    const hash = createHash('sha256');
    const fd = fs.openSync(file, 'r');
    try {
      let n;
      while ((n = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0) hash.update(chunk.subarray(0, n));
    } finally {
      fs.closeSync(fd);
    }
    parentPort.postMessage([file, hash.digest('hex')]);
  } catch {
    parentPort.postMessage([file, null]);
  }
}`;

/** Files asked for in this turn, hashed by one worker once the turn ends. */
let batch: Map<string, { resolve: (digest: string) => void; reject: (error: Error) => void }> | null = null;

function hashInWorker(files: Map<string, { resolve: (digest: string) => void; reject: (error: Error) => void }>): void {
  const worker = new Worker(DIGEST_WORKER, { eval: true, workerData: [...files.keys()] });
  // A server that closes meanwhile does not wait for it.
  worker.unref();
  worker.on('message', ([file, digest]: [string, string | null]) => {
    const waiting = files.get(file);
    files.delete(file);
    if (digest) waiting?.resolve(digest);
    else waiting?.reject(new Error(`${file}: unreadable`));
  });
  const fail = (error: Error) => {
    for (const waiting of files.values()) waiting.reject(error);
    files.clear();
  };
  worker.on('error', fail);
  worker.on('exit', () => fail(new Error('the digest worker ended early')));
}

/**
 * modelDigest off the main thread: the files asked for in one turn are read and hashed by one worker
 * thread, so requests are answered meanwhile (the server computes them as it starts; /info waits for
 * them). Hashed a chunk at a time on the main thread instead, the models took about a tenth of its
 * first second under load (docs/api.md, "Cold start"); WebCrypto's digest and fs.promises' readFile
 * were measured too and held the main thread as long as hashing there (copies, chunks).
 */
export function modelDigestAsync(file: string): Promise<string> {
  const known = digests.get(file);
  if (known) return Promise.resolve(known);
  let running = reading.get(file);
  if (!running) {
    running = new Promise<string>((resolve, reject) => {
      if (!batch) {
        const files = (batch = new Map());
        queueMicrotask(() => {
          batch = null;
          hashInWorker(files);
        });
      }
      batch.set(file, { resolve, reject });
    })
      .then((d) => {
        digests.set(file, d);
        return d;
      })
      .finally(() => reading.delete(file));
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
