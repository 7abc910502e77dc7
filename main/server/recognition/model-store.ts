// Models installed into the data folder, over the ones the app ships (the shelf detector, the product
// embedder and the price-tag detector): by `npm run cli -- models install FILE [--kind embedder|tags]`, or pulled from the
// central by sync (docs/sync.md, "Models"). A model is checked before it is used (its checksum, and
// that onnxruntime loads it with its kind's inputs and outputs); the one it replaces is kept, so a model
// that fails later can be rolled back to the previous one. The recognition worker reads the current
// choice before each job, so a new model is only ever used from the next job on (jobs/worker.ts).
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { copyFile, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { EMBED_DIM, EMBED_SIDE } from './identification/embedding.js';
import { readModelMetadata } from './model-metadata.js';

export type ModelKind = 'detector' | 'embedder' | 'tags';

/** What each kind of model is called and must look like to onnxruntime. */
export const MODEL_KINDS: Record<ModelKind, { name: string; label: string; inputs: string[]; outputs: string[] }> = {
  detector: { name: 'shelf-detector', label: 'shelf detector', inputs: ['image'], outputs: ['heatmap', 'size', 'offset'] },
  embedder: { name: 'product-embedder', label: 'product embedder', inputs: ['image'], outputs: ['embedding'] },
  tags: { name: 'price-tag-detector', label: 'price-tag detector', inputs: ['image'], outputs: ['heatmap', 'size', 'offset'] },
};

/**
 * Whether a detector file finds price tags rather than products. Both have the same inputs and outputs, so
 * only the metadata export.py writes tells them apart: `finds` ("price tags"), or for files exported before
 * it (the first shipped tag model) an `arch` of the tag network (mnv2-tags).
 */
export function findsPriceTags(metadata: Record<string, string>): boolean {
  if (metadata.finds !== undefined) return metadata.finds === 'price tags';
  return /(^|[^\w-])mnv2-tags\b/.test(metadata.arch ?? '');
}

export function isModelKind(kind: string): kind is ModelKind {
  return Object.hasOwn(MODEL_KINDS, kind);
}

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

function choiceFile(dataDir: string, kind: ModelKind): string {
  return path.join(modelsDir(dataDir), `${kind}.json`);
}

export class ModelError extends Error {}

/** The installed choice of a kind (nothing installed: the shipped model is used). */
export function readModelChoice(dataDir: string, kind: ModelKind = 'detector'): ModelChoice {
  try {
    return { ...EMPTY, ...(JSON.parse(readFileSync(choiceFile(dataDir, kind), 'utf8')) as ModelChoice) };
  } catch {
    return { ...EMPTY };
  }
}

/** The path of the model of that kind to use now, or null for the shipped one. */
export function currentModelPath(dataDir: string, kind: ModelKind = 'detector'): string | null {
  const { current } = readModelChoice(dataDir, kind);
  return current ? path.join(modelsDir(dataDir), current.file) : null;
}

async function writeChoice(dataDir: string, kind: ModelKind, choice: ModelChoice): Promise<void> {
  const target = choiceFile(dataDir, kind);
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

/** Loads the file and checks its kind's interface (an embedder also embeds); throws ModelError saying what is wrong. */
export async function checkModel(file: string, kind: ModelKind = 'detector'): Promise<void> {
  const want = MODEL_KINDS[kind];
  let session: ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(await readFile(file), { intraOpNumThreads: 1 });
  } catch (error) {
    throw new ModelError(`onnxruntime cannot load it: ${(error as Error).message.split('\n')[0]}`);
  }
  try {
    if (!want.inputs.every((i) => session.inputNames.includes(i)) || !want.outputs.every((o) => session.outputNames.includes(o))) {
      throw new ModelError(`it is not a ${want.label}: inputs ${session.inputNames.join(', ')}, outputs ${session.outputNames.join(', ')} (expected ${want.inputs.join(', ')} -> ${want.outputs.join(', ')})`);
    }
    if (kind !== 'embedder') {
      // A tag model installed as the shelf detector would find price labels instead of products, and the reverse.
      const tags = findsPriceTags(await readModelMetadata(file));
      if (tags !== (kind === 'tags')) throw new ModelError(`it is not a ${want.label}: its metadata says it finds ${tags ? 'price tags' : 'products'}`);
    }
    if (kind === 'embedder') {
      // The vectors must be comparable with the app's: one image in, EMBED_DIM numbers out.
      const out = await session.run({ image: new ort.Tensor('float32', new Float32Array(3 * EMBED_SIDE * EMBED_SIDE), [1, 3, EMBED_SIDE, EMBED_SIDE]) });
      if (out.embedding.data.length !== EMBED_DIM) throw new ModelError(`it embeds into ${out.embedding.data.length} numbers, not ${EMBED_DIM}`);
    }
  } catch (error) {
    if (error instanceof ModelError) throw error;
    throw new ModelError(`it does not run on a ${EMBED_SIDE}x${EMBED_SIDE} image: ${(error as Error).message.split('\n')[0]}`);
  } finally {
    await session.release();
  }
}

/**
 * Installs `source` as the current model of its kind, the current one becoming the previous. `expectedSha256`
 * (a model pulled from the central) must match. A model that fails its check is not installed, and
 * its checksum is remembered so that sync does not fetch it again.
 */
export async function installModel(dataDir: string, source: string, options: { kind?: ModelKind; version?: string; expectedSha256?: string } = {}): Promise<InstalledModel> {
  const kind = options.kind ?? 'detector';
  const { name } = MODEL_KINDS[kind];
  const sha256 = await sha256OfFile(source);
  if (options.expectedSha256 && sha256 !== options.expectedSha256) {
    throw new ModelError(`checksum mismatch: the file hashes to ${sha256}, not ${options.expectedSha256}`);
  }
  const choice = readModelChoice(dataDir, kind);
  if (choice.current?.sha256 === sha256) return choice.current;
  try {
    await checkModel(source, kind);
  } catch (error) {
    await mkdir(modelsDir(dataDir), { recursive: true });
    await writeChoice(dataDir, kind, { ...choice, refused: [...new Set([...choice.refused, sha256])] });
    throw error;
  }
  await mkdir(modelsDir(dataDir), { recursive: true });
  const file = `${name}-${sha256.slice(0, 16)}.onnx`;
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
    version: options.version ?? `${name} sha256:${sha256.slice(0, 12)}`,
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
  await writeChoice(dataDir, kind, { current: installed, previous, refused: choice.refused.filter((s) => s !== sha256) });
  return installed;
}

/**
 * Goes back to the previous model (or to the shipped one when there is none). `refuse`: the current
 * one failed here, so sync never installs it again.
 */
export async function rollbackModel(dataDir: string, options: { kind?: ModelKind; refuse?: boolean } = {}): Promise<ModelChoice> {
  const kind = options.kind ?? 'detector';
  const choice = readModelChoice(dataDir, kind);
  if (!choice.current) throw new ModelError('No installed model to roll back: the shipped model is in use.');
  const next: ModelChoice = {
    current: choice.previous,
    previous: null,
    refused: options.refuse ? [...new Set([...choice.refused, choice.current.sha256])] : choice.refused,
  };
  await writeChoice(dataDir, kind, next);
  await rm(path.join(modelsDir(dataDir), choice.current.file), { force: true });
  return next;
}
