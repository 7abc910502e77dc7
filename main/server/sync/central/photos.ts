// The central's side of photo transfer (docs/sync.md, "Photos"). Photos travel apart from records, by
// content hash, over tus (resumable uploads: a dropped upload continues from the last byte the central
// stored). An upload names the SHA-256 it claims; when its last byte lands the central hashes the
// file, checks that it is an image, and only then files it in the blob store under the same key the
// laptop's upload row names (`ab/<sha256>.<ext>`). Records may arrive before their photo: such an
// upload row is "pending" (its content answers 404 saying so) until the file lands.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { pipeline, Transform, type Readable } from 'node:stream';
import { FileStore } from '@tus/file-store';
import type { Kysely } from 'kysely';
import { Server, type Upload } from '@tus/server';
import sharp from 'sharp';
import { MAX_UPLOAD_BYTES } from '../../domain/uploads.js';
import { PHOTO_UPLOAD_PATH } from '../../schemas/sync.js';
import type { Database } from '../../storage/schema.js';
import { blobKey, isBlobKey, type BlobStore } from '../../storage/blob-store.js';


const IMAGE_EXT: Record<string, string> = { jpeg: 'jpg', png: 'png', webp: 'webp' };

function refuse(status: number, text: string): never {
  // tus answers the thrown body as is: DRF's shape, like every other error of the API.
  throw { status_code: status, body: JSON.stringify({ detail: text }) };
}

async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Uploads hashed as they arrive, kept at most this many at once (abandoned ones fall out first). */
const HASHING_LIMIT = 1_000;
/**
 * Bytes gathered per write to the incoming file: each write is a hop to libuv's thread pool, which
 * costs the central's one JS thread far more than the copy (bench/sync-push.bench.mjs, 300 visits x 5
 * photos: the central's CPU per photo 17.6 ms with the socket's 64 KiB pieces, 14.2 with 256 KiB,
 * 11.6 with 1 MiB). A cut connection loses nothing: @tus/server ends the stream of an aborted request
 * gracefully, so what was gathered is written and the laptop resumes after it.
 */
const WRITE_BYTES = 1024 * 1024;

/**
 * tus's file store, hashing the bytes on their way to disk: a photo that arrives in one process,
 * from its first byte on (the usual case, resumes in the same process included), is checked without
 * reading it back. Anything else (a resume in another central process, a failed write) forgets the
 * running hash and the file is read back at the end, as before.
 */
class HashingFileStore extends FileStore {
  private readonly hashing = new Map<string, { hash: Hash; bytes: number }>();

  override async write(readable: IncomingMessage | Readable, id: string, offset: number): Promise<number> {
    const known = this.hashing.get(id);
    this.hashing.delete(id);
    const state = offset === 0 ? { hash: createHash('sha256'), bytes: 0 } : known?.bytes === offset ? known : undefined;
    if (!state) return super.write(readable, id, offset);
    // Also gathers the socket's 64 KiB chunks into larger writes.
    let held: Buffer[] = [];
    let heldBytes = 0;
    const tee = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        state.hash.update(chunk);
        state.bytes += chunk.length;
        held.push(chunk);
        heldBytes += chunk.length;
        if (heldBytes < WRITE_BYTES) return done();
        const out = Buffer.concat(held, heldBytes);
        held = [];
        heldBytes = 0;
        done(null, out);
      },
      flush(done) {
        done(null, heldBytes > 0 ? Buffer.concat(held, heldBytes) : undefined);
      },
    });
    const end = await super.write(
      pipeline(readable, tee, () => undefined),
      id,
      offset,
    );
    if (state.bytes === end) {
      this.hashing.set(id, state);
      if (this.hashing.size > HASHING_LIMIT) this.hashing.delete(this.hashing.keys().next().value!);
    }
    return end;
  }

  override async remove(id: string): Promise<void> {
    this.hashing.delete(id);
    await super.remove(id);
  }

  /** The SHA-256 of the upload's `size` bytes: from the running hash when it covers them all. */
  async sha256(id: string, size: number): Promise<string> {
    const state = this.hashing.get(id);
    this.hashing.delete(id);
    if (state?.bytes === size) return state.hash.digest('hex');
    return sha256OfFile(path.join(this.directory, id));
  }
}

export interface PhotoReceiver {
  tus: Server;
  /** Which of these blob keys the central does not hold yet. */
  missing(keys: readonly string[]): Promise<string[]>;
}

export async function createPhotoReceiver(dataDir: string, blobs: BlobStore): Promise<PhotoReceiver> {
  // Uploads in progress: on the same (shared) storage as the blob store, so a finished file is renamed, not copied.
  const incoming = path.join(dataDir, 'sync-incoming');
  await mkdir(incoming, { recursive: true });
  const datastore = new HashingFileStore({ directory: incoming });
  const tus = new Server({
    path: PHOTO_UPLOAD_PATH,
    datastore,
    maxSize: MAX_UPLOAD_BYTES,
    relativeLocation: true,
    // Expose nothing across origins: only laptops' sync engines call this, never a browser page.
    allowedOrigins: [],
    async onUploadCreate(_req, upload) {
      const sha = upload.metadata?.sha256 ?? '';
      const ext = upload.metadata?.ext ?? '';
      if (!isBlobKey(blobKey(sha, ext))) refuse(400, 'Upload-Metadata must name the photo\'s sha256 (64 hex digits) and ext (jpg, png or webp).');
      if (!upload.size) refuse(400, 'Upload-Length is required and must be above 0.');
      return {};
    },
    async onUploadFinish(_req, upload: Upload) {
      const file = path.join(incoming, upload.id);
      const claimed = upload.metadata?.sha256 ?? '';
      const ext = upload.metadata?.ext ?? '';
      const actual = await datastore.sha256(upload.id, upload.size ?? -1);
      if (actual !== claimed) {
        await datastore.remove(upload.id).catch(() => undefined);
        refuse(422, `The photo's bytes hash to ${actual}, not to ${claimed}: it was not stored; send it again.`);
      }
      try {
        // The header says what the file is (no decoding: the laptop decoded it when it took the photo,
        // and the hash proves these are the same bytes). A file that is no image is not filed.
        const format = (await sharp(file).metadata()).format;
        if (IMAGE_EXT[format ?? ''] !== ext) throw new Error('type');
      } catch {
        await datastore.remove(upload.id).catch(() => undefined);
        refuse(422, 'The photo is not a valid JPEG, PNG or WebP image of the type its name says: it was not stored.');
      }
      const key = blobKey(claimed, ext);
      if ((await blobs.size(key)) === null) await blobs.putFile(key, file);
      // The upload's record (its .json) goes; the bytes are in the blob store now.
      await rm(file, { force: true });
      await rm(`${file}.json`, { force: true });
      return {};
    },
  });
  return {
    tus,
    async missing(keys) {
      const out: string[] = [];
      for (const key of keys) if ((await blobs.size(key)) === null) out.push(key);
      return out;
    },
  };
}

/** Whether an upload made on the central itself (a reference image's photo: master data) has this file. */
export async function isCentralPhoto(db: Kysely<Database>, key: string): Promise<boolean> {
  const row = await db
    .selectFrom('uploads')
    .leftJoin('sync_owners', (j) => j.onRef('sync_owners.record_id', '=', 'uploads.id').on('sync_owners.entity', '=', 'upload'))
    .select('uploads.id')
    .where('uploads.file', '=', key)
    .where('sync_owners.device_id', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}
