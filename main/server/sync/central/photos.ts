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
import type { S3Store } from '@tus/s3-store';
import type { Kysely } from 'kysely';
import { Server, type Upload } from '@tus/server';
import type { Locker } from '@tus/utils';
import sharp from 'sharp';
import { MAX_UPLOAD_BYTES } from '../../domain/uploads.js';
import { PHOTO_UPLOAD_PATH } from '../../schemas/sync.js';
import type { Database } from '../../storage/schema.js';
import { blobKey, isBlobKey, type BlobStore } from '../../storage/blob-store.js';
import { isBucketFailure, s3ClientConfig, type ObjectStore } from '../../storage/object-store.js';


const IMAGE_EXT: Record<string, string> = { jpeg: 'jpg', png: 'png', webp: 'webp' };

function refuse(status: number, text: string): never {
  // tus answers the thrown body as is: DRF's shape, like every other error of the API.
  throw { status_code: status, body: JSON.stringify({ detail: text }) };
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

interface RunningHash {
  hash: Hash;
  bytes: number;
}

/**
 * Hashes the bytes of a tus PATCH on their way to the store: a photo that arrives in one process,
 * from its first byte on (the usual case, resumes in the same process included), is checked without
 * reading it back. Anything else (a resume in another central process, a failed write) forgets the
 * running hash and the stored bytes are read back at the end, as before.
 */
class RunningHashes {
  private readonly hashing = new Map<string, RunningHash>();

  async write(readable: IncomingMessage | Readable, id: string, offset: number, store: (input: Readable) => Promise<number>): Promise<number> {
    const known = this.hashing.get(id);
    this.hashing.delete(id);
    const state = offset === 0 ? { hash: createHash('sha256'), bytes: 0 } : known?.bytes === offset ? known : undefined;
    if (!state) return store(readable as Readable);
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
    const end = await store(pipeline(readable, tee, () => undefined));
    if (state.bytes === end) {
      this.hashing.set(id, state);
      if (this.hashing.size > HASHING_LIMIT) this.hashing.delete(this.hashing.keys().next().value!);
    }
    return end;
  }

  forget(id: string): void {
    this.hashing.delete(id);
  }

  /** The SHA-256 of the upload's `size` bytes: from the running hash when it covers them all, else read back. */
  async sha256(id: string, size: number, readBack: () => Promise<Readable>): Promise<string> {
    const state = this.hashing.get(id);
    this.hashing.delete(id);
    if (state?.bytes === size) return state.hash.digest('hex');
    const hash = createHash('sha256');
    for await (const chunk of await readBack()) hash.update(chunk as Buffer);
    return hash.digest('hex');
  }
}

/** tus's file store (uploads in progress under the data directory), hashing as the bytes arrive. */
class HashingFileStore extends FileStore {
  readonly hashes = new RunningHashes();

  override write(readable: IncomingMessage | Readable, id: string, offset: number): Promise<number> {
    return this.hashes.write(readable, id, offset, (input) => super.write(input, id, offset));
  }

  override async remove(id: string): Promise<void> {
    this.hashes.forget(id);
    await super.remove(id);
  }

  sha256(id: string, size: number): Promise<string> {
    return this.hashes.sha256(id, size, async () => createReadStream(path.join(this.directory, id)));
  }
}

/**
 * tus's S3 store (uploads in progress as multipart uploads in the bucket, so any central process can
 * continue any upload at the byte it reached), hashing as the bytes arrive. A PATCH is acknowledged
 * only once its bytes are in the bucket (a part, or the "incomplete part" object of a short tail).
 */
async function hashingS3Store(options: ConstructorParameters<typeof S3Store>[0], objects: ObjectStore) {
  // Loaded only for a central with a bucket (about 0.2 s of every start otherwise).
  const { S3Store } = await import('@tus/s3-store');
  class HashingS3Store extends S3Store {
    readonly hashes = new RunningHashes();

    constructor(
      options: ConstructorParameters<typeof S3Store>[0],
      private readonly objects: ObjectStore,
    ) {
      super(options);
    }

    /** @tus/s3-store answers "no such upload" for any failure to read it: an unreachable bucket must not make the laptop start over. */
    override async getUpload(id: string): Promise<Upload> {
      try {
        return await super.getUpload(id);
      } catch (error) {
        await this.objects.head(`${id}.info`);
        throw error;
      }
    }

    override write(readable: Readable, id: string, offset: number): Promise<number> {
      return this.hashes.write(readable, id, offset, (input) => super.write(input, id, offset));
    }

    sha256(id: string, size: number): Promise<string> {
      return this.hashes.sha256(id, size, () => this.read(id) as Promise<Readable>);
    }
  }
  return new HashingS3Store(options, objects);
}

type HashingS3Store = Awaited<ReturnType<typeof hashingS3Store>>;

export interface PhotoReceiver {
  tus: Server;
  /** Which of these blob keys the central does not hold yet. */
  missing(keys: readonly string[]): Promise<string[]>;
}

/** Blob keys asked about at once when the store is a bucket (one HEAD each). */
const HEADS_AT_ONCE = 16;

/** Where uploads in progress live: files under the data directory, or the bucket with a locker all processes share. */
export interface ReceiverStorage {
  objects?: ObjectStore | null;
  locker?: Locker;
}

/** The header bytes read to tell a photo's type, when its upload sits in the bucket. */
const HEAD_BYTES = 64 * 1024;

export async function createPhotoReceiver(dataDir: string, blobs: BlobStore, storage: ReceiverStorage = {}): Promise<PhotoReceiver> {
  const objects = storage.objects ?? null;
  // Uploads in progress: on the same (shared) storage as the blob store, so a finished file is renamed, not copied.
  const incoming = path.join(dataDir, 'sync-incoming');
  let fileStore: HashingFileStore | null = null;
  let s3Store: HashingS3Store | null = null;
  if (objects) {
    // Photos (3-5 MB) are shorter than a part: a whole one goes up as one part, a cut one's tail as the
    // "incomplete part" object, which the next PATCH (on any process) takes up.
    s3Store = await hashingS3Store({ useTags: false, s3ClientConfig: { ...s3ClientConfig(objects.settings), bucket: objects.bucket } }, objects);
  } else {
    await mkdir(incoming, { recursive: true });
    fileStore = new HashingFileStore({ directory: incoming });
  }
  const datastore = (s3Store ?? fileStore)!;

  /** The stored upload's type by its header: sharp reads the first bytes, or the whole object where they do not suffice (WebP). */
  const formatOf = async (upload: Upload): Promise<string | undefined> => {
    if (!objects) return (await sharp(path.join(incoming, upload.id)).metadata()).format;
    const head = await objects.getBuffer(upload.id, `bytes=0-${HEAD_BYTES - 1}`);
    if (!head) throw new Error('gone');
    try {
      return (await sharp(head).metadata()).format;
    } catch {
      return (await sharp((await objects.getBuffer(upload.id)) ?? Buffer.alloc(0)).metadata()).format;
    }
  };
  /** Drops what the finished upload left in the store (the file and its record, or the objects). */
  const discard = async (id: string): Promise<void> => {
    if (objects) return objects.remove([id, `${id}.info`, `${id}.part`]).catch(() => undefined);
    await rm(path.join(incoming, id), { force: true });
    await rm(path.join(incoming, `${id}.json`), { force: true });
  };

  const tus = new Server({
    path: PHOTO_UPLOAD_PATH,
    datastore,
    maxSize: MAX_UPLOAD_BYTES,
    relativeLocation: true,
    ...(storage.locker ? { locker: storage.locker } : {}),
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
      const claimed = upload.metadata?.sha256 ?? '';
      const ext = upload.metadata?.ext ?? '';
      const actual = s3Store ? await s3Store.sha256(upload.id, upload.size ?? -1) : await fileStore!.sha256(upload.id, upload.size ?? -1);
      if (actual !== claimed) {
        await discard(upload.id);
        refuse(422, `The photo's bytes hash to ${actual}, not to ${claimed}: it was not stored; send it again.`);
      }
      try {
        // The header says what the file is (no decoding: the laptop decoded it when it took the photo,
        // and the hash proves these are the same bytes). A file that is no image is not filed.
        if (IMAGE_EXT[(await formatOf(upload)) ?? ''] !== ext) throw new Error('type');
      } catch (error) {
        if (isBucketFailure(error)) throw error;
        await discard(upload.id);
        refuse(422, 'The photo is not a valid JPEG, PNG or WebP image of the type its name says: it was not stored.');
      }
      const key = blobKey(claimed, ext);
      if ((await blobs.size(key)) === null) {
        // In the bucket the object is copied by the server itself; on disk the file is renamed.
        if (objects) await objects.copy(upload.id, key, { sha256: claimed });
        else await blobs.putFile(key, path.join(incoming, upload.id));
      }
      // What the upload left goes; the bytes are in the blob store now.
      await discard(upload.id);
      return {};
    },
    async onResponseError(_req, error) {
      // The bucket is away: the laptop keeps its photo and retries (the route adds Retry-After).
      if (isBucketFailure(error)) return { status_code: 503, body: JSON.stringify({ detail: BUCKET_AWAY }) };
      return undefined;
    },
  });
  return {
    tus,
    async missing(keys) {
      const lacking = new Set<string>();
      let next = 0;
      // One HEAD per key in a bucket: a few at once.
      await Promise.all(
        Array.from({ length: Math.min(objects ? HEADS_AT_ONCE : 1, keys.length) }, async () => {
          while (next < keys.length) {
            const key = keys[next++];
            if ((await blobs.size(key)) === null) lacking.add(key);
          }
        }),
      );
      return keys.filter((k) => lacking.has(k));
    },
  };
}

export const BUCKET_AWAY = 'The photo store is unreachable for now: nothing was lost; try again later.';
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
