// What a central keeps in its bucket besides the tus uploads (docs/sync.md, "Scaling out"):
// - the offered models: each file under `models/<kind>/<sha256>.onnx` and the offer itself, read by
//   every process, in `models/offered.json` (written by `cli models install|rollback` and by the
//   migration, after the file it names is stored);
// - the migration of an existing central's files into the bucket: photos (named by their SHA-256)
//   and the current models, each hashed, uploaded with Content-MD5 (the server refuses changed bytes)
//   and its SHA-256 kept in the object's metadata, so a second run skips what is already there. A file
//   whose bytes do not hash to its name is refused and reported, never uploaded. The files stay until
//   asked to remove them (`--remove`), and then only those verified in the bucket go.
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { MODEL_KINDS, modelsDir, readModelChoice, type ModelKind } from '../../recognition/model-store.js';
import type { OfferedModelsBody } from '../../schemas/sync.js';
import { isBlobKey } from '../../storage/blob-store.js';
import { fileDigests, type ObjectStore } from '../../storage/object-store.js';

export const OFFER_KEY = 'models/offered.json';

export function modelKey(kind: ModelKind, sha256: string): string {
  return `models/${kind}/${sha256}.onnx`;
}

/** The models the central offers, from the bucket (none before the first publication). */
export async function readOffer(objects: ObjectStore): Promise<OfferedModelsBody> {
  const body = await objects.getBuffer(OFFER_KEY);
  if (!body) return { detector: null, embedder: null, tags: null };
  const parsed = JSON.parse(body.toString('utf8')) as Partial<OfferedModelsBody>;
  return { detector: parsed.detector ?? null, embedder: parsed.embedder ?? null, tags: parsed.tags ?? null };
}

export interface CopyReport {
  /** Uploaded now, verified. */
  stored: string[];
  /** Already in the bucket with the same SHA-256 (a resumed migration). */
  present: string[];
  /** Refused: the bytes do not hash to the name, or the upload failed verification. */
  refused: Array<{ file: string; reason: string }>;
  /** Removed from the local disk (only with remove). */
  removed: string[];
}

/** Uploads one file under `key` unless the bucket holds it with this SHA-256; verifies either way. */
async function copyVerified(objects: ObjectStore, key: string, file: string, expectedSha256: string, report: CopyReport, label: string): Promise<boolean> {
  const digests = await fileDigests(file);
  if (digests.sha256 !== expectedSha256) {
    report.refused.push({ file: label, reason: `its bytes hash to ${digests.sha256}, not to ${expectedSha256}: corrupted, not uploaded` });
    return false;
  }
  const there = await objects.head(key);
  if (there && there.size === digests.size && there.metadata.sha256 === expectedSha256) {
    report.present.push(label);
    return true;
  }
  await objects.putFile(key, file, digests);
  // The server checked Content-MD5; its ETag (the MD5 of a single-part object) says the same again.
  const stored = await objects.head(key);
  const md5hex = Buffer.from(digests.md5, 'base64').toString('hex');
  if (!stored || stored.size !== digests.size || (stored.etag && !stored.etag.includes('-') && stored.etag !== md5hex)) {
    report.refused.push({ file: label, reason: 'the bucket does not hold the bytes sent (size or checksum differs)' });
    return false;
  }
  report.stored.push(label);
  return true;
}

/** Stores the current models of the data directory in the bucket, then the offer that names them. */
export async function publishModels(dataDir: string, objects: ObjectStore, report: CopyReport = emptyReport()): Promise<OfferedModelsBody> {
  const offer: OfferedModelsBody = { detector: null, embedder: null, tags: null };
  for (const kind of Object.keys(MODEL_KINDS) as ModelKind[]) {
    const { current } = readModelChoice(dataDir, kind);
    if (!current) continue;
    const file = path.join(modelsDir(dataDir), current.file);
    if (await copyVerified(objects, modelKey(kind, current.sha256), file, current.sha256, report, `models/${current.file}`)) {
      offer[kind] = { version: current.version, sha256: current.sha256, bytes: current.bytes };
    }
  }
  await objects.putBuffer(OFFER_KEY, Buffer.from(JSON.stringify(offer)), 'application/json');
  return offer;
}

export function emptyReport(): CopyReport {
  return { stored: [], present: [], refused: [], removed: [] };
}

/** Every photo file under DATA_DIR/uploads, by blob key (anything else there is left alone). */
async function photoKeys(dataDir: string): Promise<string[]> {
  const root = path.join(dataDir, 'uploads');
  const keys: string[] = [];
  let dirs: string[];
  try {
    dirs = await readdir(root);
  } catch {
    return keys;
  }
  for (const dir of dirs.sort()) {
    let files: string[];
    try {
      files = await readdir(path.join(root, dir));
    } catch {
      continue;
    }
    for (const f of files.sort()) if (isBlobKey(`${dir}/${f}`)) keys.push(`${dir}/${f}`);
  }
  return keys;
}

/**
 * Moves an existing central's photos and current models into the bucket; resumable (objects already
 * there with the same SHA-256 are skipped), each verified. `remove`: afterwards, the local photo files
 * that are verified in the bucket are deleted (models stay: `models install` reads them).
 */
export async function migrateToBucket(dataDir: string, objects: ObjectStore, options: { remove?: boolean; onProgress?: (done: number, total: number) => void } = {}): Promise<CopyReport> {
  const report = emptyReport();
  const keys = await photoKeys(dataDir);
  const verified: string[] = [];
  for (const [i, key] of keys.entries()) {
    const sha256 = path.basename(key).split('.')[0];
    if (await copyVerified(objects, key, path.join(dataDir, 'uploads', key), sha256, report, `uploads/${key}`)) verified.push(key);
    options.onProgress?.(i + 1, keys.length);
  }
  await publishModels(dataDir, objects, report);
  if (options.remove) {
    for (const key of verified) {
      await rm(path.join(dataDir, 'uploads', key), { force: true });
      report.removed.push(`uploads/${key}`);
    }
  }
  return report;
}
