// The central's side of photo transfer (docs/sync.md, "Photos"). Photos travel apart from records, by
// content hash, over tus (resumable uploads: a dropped upload continues from the last byte the central
// stored). An upload names the SHA-256 it claims; when its last byte lands the central hashes the
// file, checks that it is an image, and only then files it in the blob store under the same key the
// laptop's upload row names (`ab/<sha256>.<ext>`). Records may arrive before their photo: such an
// upload row is "pending" (its content answers 404 saying so) until the file lands.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
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

export interface PhotoReceiver {
  tus: Server;
  /** Which of these blob keys the central does not hold yet. */
  missing(keys: readonly string[]): Promise<string[]>;
}

export async function createPhotoReceiver(dataDir: string, blobs: BlobStore): Promise<PhotoReceiver> {
  // Uploads in progress: on the same (shared) storage as the blob store, so a finished file is renamed, not copied.
  const incoming = path.join(dataDir, 'sync-incoming');
  await mkdir(incoming, { recursive: true });
  const datastore = new FileStore({ directory: incoming });
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
      const actual = await sha256OfFile(file);
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
