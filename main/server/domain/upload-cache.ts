// An upload's bytes as a local file on any central process (docs/sync.md, "Scaling out"). Processes
// share PostgreSQL and the bucket but no disk: a photo received by another process is only in the
// bucket, while recognition, the describer (a worker thread) and sharp read files by path. So the
// uploads folder is a read-through cache: a photo not on this disk is fetched from the bucket into it
// (a temp file, its SHA-256 checked against the key's name, then renamed into place), once per key
// however many ask at the same time. Without a bucket (laptops, a bucket-less central) the path is
// answered as before, unchecked.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isBlobKey, type BlobStore } from '../storage/blob-store.js';
import { BucketUnavailableError, ObjectStore, S3BlobStore, isBucketFailure } from '../storage/object-store.js';
import type { UploadTable } from '../storage/schema.js';
import { uploadFilePath } from './uploads.js';

/** Where a central keeps its photos besides this disk: its bucket (app.objectStore), or none. */
export type PhotoBucket = ObjectStore | null;

/** The bucket holds bytes under a photo's key that do not hash to its name: refused, never cached. */
export class CorruptPhotoError extends Error {}

// Fetches under way, by target file: a second reader waits for the first fetch instead of starting one.
const fetching = new Map<string, Promise<void>>();

async function isFile(file: string): Promise<boolean> {
  return (await stat(file).catch(() => null))?.isFile() ?? false;
}

/**
 * The local path of an upload's file, fetched from the bucket first when this process does not hold
 * it. When the bucket does not hold it either, the path is answered all the same (nothing there: the
 * photo has not reached the central yet, as without a bucket). Throws BucketUnavailableError when the
 * bucket cannot be reached, CorruptPhotoError when its bytes do not match the key.
 */
export async function localUploadFile(dataDir: string, bucket: PhotoBucket | BlobStore, row: Pick<UploadTable, 'file'>): Promise<string> {
  const file = uploadFilePath(dataDir, row);
  if (!bucket || !isBlobKey(row.file) || (await isFile(file))) return file;
  let pending = fetching.get(file);
  if (!pending) {
    pending = fetchInto(bucket instanceof ObjectStore ? new S3BlobStore(bucket) : bucket, row.file, file).finally(() => fetching.delete(file));
    fetching.set(file, pending);
  }
  await pending;
  return file;
}

async function fetchInto(blobs: BlobStore, key: string, target: string): Promise<void> {
  const body = await blobs.read(key);
  if (!body) return;
  await mkdir(path.dirname(target), { recursive: true });
  // Not a blob key (`.part`): a half-written file is never taken for a photo, here or by the migration.
  const tmp = `${target}.${randomBytes(6).toString('hex')}.part`;
  try {
    const sha = createHash('sha256');
    await pipeline(
      body,
      async function* (source: Readable) {
        for await (const chunk of source) {
          sha.update(chunk as Buffer);
          yield chunk as Buffer;
        }
      },
      createWriteStream(tmp),
    );
    const got = sha.digest('hex');
    const expected = path.basename(key).split('.')[0];
    if (got !== expected) throw new CorruptPhotoError(`the bucket's ${key} hashes to ${got}, not to its name: refused`);
    // Synced before the rename: a crash must not leave a torn file that later reads trust.
    const fh = await open(tmp, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, target);
  } catch (error) {
    await rm(tmp, { force: true });
    // A connection lost mid-body is the bucket away too (the SDK's own call only covers the request).
    if (!(error instanceof BucketUnavailableError) && isBucketFailure(error)) throw new BucketUnavailableError(`the bucket could not be read: ${(error as Error).message}`);
    throw error;
  }
}

/**
 * A photo this process stored itself (through the central's own API, a panorama a job stitched) is
 * written to its data folder first; with a bucket it is also put there before it is answered, so
 * laptops and the other processes get it from any process. No bucket: nothing to do.
 */
export async function keepInBucket(bucket: PhotoBucket, dataDir: string, file: string): Promise<void> {
  if (!bucket || !isBlobKey(file)) return;
  if (await bucket.head(file)) return;
  await bucket.putFile(file, uploadFilePath(dataDir, { file }));
}
