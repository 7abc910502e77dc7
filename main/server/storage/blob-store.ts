// Photo files by key, behind one small interface so that the central can keep them in an
// S3-compatible bucket (storage/object-store.ts) without touching sync: the key is an upload's `file` column
// (`ab/abcdef….jpg`, named by the SHA-256 of the bytes), the same on every instance.
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

export interface BlobStore {
  /** Size in bytes, or null when the store does not hold the key. */
  size(key: string): Promise<number | null>;
  /** Takes the finished file at `from` (moved, not copied, where the store can) and keeps it under `key`, durably. */
  putFile(key: string, from: string): Promise<void>;
  /** The bytes, or null when the store does not hold the key. */
  read(key: string): Promise<Readable | null>;
}

/** `ab/<64 hex>.jpg|png|webp`: nothing else can name a blob, so no key can climb out of the store. */
export const BLOB_KEY = /^[0-9a-f]{2}\/[0-9a-f]{64}\.(?:jpg|png|webp)$/;

export function isBlobKey(key: string): boolean {
  return BLOB_KEY.test(key) && key.slice(0, 2) === key.slice(3, 5);
}

export function blobKey(sha256: string, ext: string): string {
  return `${sha256.slice(0, 2)}/${sha256}.${ext}`;
}

function checked(key: string): string {
  if (!isBlobKey(key)) throw new Error(`not a blob key: ${key}`);
  return key;
}

/** Files under one directory (DATA_DIR/uploads), shared storage when several processes serve. */
export class FileBlobStore implements BlobStore {
  constructor(readonly root: string) {}

  private file(key: string): string {
    return path.join(this.root, checked(key));
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.file(key))).size;
    } catch {
      return null;
    }
  }

  async putFile(key: string, from: string): Promise<void> {
    const target = this.file(key);
    await mkdir(path.dirname(target), { recursive: true });
    const fh = await open(from, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      await rename(from, target);
    } catch {
      // Another volume (shared storage mounted apart): copy then drop the source.
      const tmp = `${target}.${process.pid}.tmp`;
      await copyFile(from, tmp);
      await rename(tmp, target);
      await rm(from, { force: true });
    }
    // The directory entry itself survives a crash only once the directory is synced.
    const dir = await open(path.dirname(target), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  async read(key: string): Promise<Readable | null> {
    const file = this.file(key);
    return (await this.size(key)) === null ? null : createReadStream(file);
  }

  /** Where the key lives on disk (the recognition pipeline reads files by path). */
  pathOf(key: string): string {
    return this.file(key);
  }
}
