// Detector models installed into the data folder, over the one the app ships: by `npm run cli --
// models install FILE`, or pulled from the central by sync (docs/sync.md, "Models"). A model is
// checked before it is used (its checksum, and that onnxruntime loads it with the detector's inputs
// and outputs); the one it replaces is kept, so a model that fails later can be rolled back to the
// previous one. The recognition worker reads the current choice before each job, so a new model is
// only ever used from the next job on (jobs/worker.ts).
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { copyFile, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import * as ort from 'onnxruntime-node';

export interface InstalledModel {
  /** A version people read ("shelf-detector 2026-12-01"), from the installer or the central. */
  version: string;
  sha256: string;
  bytes: number;
  /** File name under DATA_DIR/models. */
  file: string;
  installed_at: string;
}

export interface ModelChoice {
  current: InstalledModel | null;
  previous: InstalledModel | null;
  /** Checksums that failed to load here: never installed again. */
  refused: string[];
}

const EMPTY: ModelChoice = { current: null, previous: null, refused: [] };

export function modelsDir(dataDir: string): string {
  return path.join(dataDir, 'models');
}

function choiceFile(dataDir: string): string {
  return path.join(modelsDir(dataDir), 'detector.json');
}

export class ModelError extends Error {}

/** The installed detector choice (nothing installed: the shipped model is used). */
export function readModelChoice(dataDir: string): ModelChoice {
  try {
    return { ...EMPTY, ...(JSON.parse(readFileSync(choiceFile(dataDir), 'utf8')) as ModelChoice) };
  } catch {
    return { ...EMPTY };
  }
}

/** The path of the detector to use now, or null for the shipped one. */
export function currentModelPath(dataDir: string): string | null {
  const { current } = readModelChoice(dataDir);
  return current ? path.join(modelsDir(dataDir), current.file) : null;
}

async function writeChoice(dataDir: string, choice: ModelChoice): Promise<void> {
  const target = choiceFile(dataDir);
  const tmp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(JSON.stringify(choice, null, 2));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, target);
}

export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Loads the file as the detector would and checks its interface; throws ModelError saying what is wrong. */
export async function checkDetectorModel(file: string): Promise<void> {
  let session: ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(await readFile(file), { intraOpNumThreads: 1 });
  } catch (error) {
    throw new ModelError(`onnxruntime cannot load it: ${(error as Error).message.split('\n')[0]}`);
  }
  try {
    const outputs = ['heatmap', 'size', 'offset'];
    if (!session.inputNames.includes('image') || !outputs.every((o) => session.outputNames.includes(o))) {
      throw new ModelError(`it is not a shelf detector: inputs ${session.inputNames.join(', ')}, outputs ${session.outputNames.join(', ')} (expected image -> ${outputs.join(', ')})`);
    }
  } finally {
    await session.release();
  }
}

/**
 * Installs `source` as the current detector, the current one becoming the previous. `expectedSha256`
 * (a model pulled from the central) must match. A model that fails its check is not installed, and
 * its checksum is remembered so that sync does not fetch it again.
 */
export async function installModel(dataDir: string, source: string, options: { version?: string; expectedSha256?: string } = {}): Promise<InstalledModel> {
  const sha256 = await sha256OfFile(source);
  if (options.expectedSha256 && sha256 !== options.expectedSha256) {
    throw new ModelError(`checksum mismatch: the file hashes to ${sha256}, not ${options.expectedSha256}`);
  }
  const choice = readModelChoice(dataDir);
  if (choice.current?.sha256 === sha256) return choice.current;
  try {
    await checkDetectorModel(source);
  } catch (error) {
    await mkdir(modelsDir(dataDir), { recursive: true });
    await writeChoice(dataDir, { ...choice, refused: [...new Set([...choice.refused, sha256])] });
    throw error;
  }
  await mkdir(modelsDir(dataDir), { recursive: true });
  const file = `shelf-detector-${sha256.slice(0, 16)}.onnx`;
  const target = path.join(modelsDir(dataDir), file);
  const tmp = `${target}.tmp`;
  await copyFile(source, tmp);
  const fh = await open(tmp, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, target);
  const installed: InstalledModel = {
    version: options.version ?? `shelf-detector sha256:${sha256.slice(0, 12)}`,
    sha256,
    bytes: (await stat(target)).size,
    file,
    installed_at: new Date().toISOString(),
  };
  const previous = choice.current;
  // Keep the current and the previous file; older ones go.
  if (choice.previous && choice.previous.file !== file && choice.previous.file !== previous?.file) {
    await rm(path.join(modelsDir(dataDir), choice.previous.file), { force: true });
  }
  await writeChoice(dataDir, { current: installed, previous, refused: choice.refused.filter((s) => s !== sha256) });
  return installed;
}

/**
 * Goes back to the previous model (or to the shipped one when there is none). `refuse`: the current
 * one failed here, so sync never installs it again.
 */
export async function rollbackModel(dataDir: string, options: { refuse?: boolean } = {}): Promise<ModelChoice> {
  const choice = readModelChoice(dataDir);
  if (!choice.current) throw new ModelError('No installed model to roll back: the shipped model is in use.');
  const next: ModelChoice = {
    current: choice.previous,
    previous: null,
    refused: options.refuse ? [...new Set([...choice.refused, choice.current.sha256])] : choice.refused,
  };
  await writeChoice(dataDir, next);
  await rm(path.join(modelsDir(dataDir), choice.current.file), { force: true });
  return next;
}
