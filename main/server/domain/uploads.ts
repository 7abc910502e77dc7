// Uploaded images: content-addressed files under DATA_DIR/uploads (the SHA-256 of the bytes names the
// file, so the same photo uploaded twice is stored once and reported as a duplicate), with the size as
// displayed (EXIF orientation applied). Files are written and fsynced before their row commits, so an
// acknowledged upload survives a crash.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp, { type Metadata } from 'sharp';
import type { Kysely, Selectable } from 'kysely';
import { NotFoundError, ValidationError } from './errors.js';
import { newId, now } from '../storage/ids.js';
import type { Database, UploadTable } from '../storage/schema.js';
import { write } from '../storage/transaction.js';

// Uploads are inspected from their temp files, which are then moved or removed: libvips must not keep
// them open (a removed file's space is not freed while open; Windows cannot move an open file).
sharp.cache({ files: 0 });

export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
export const MAX_UPLOAD_PIXELS = 50_000_000;
const FORMATS: Record<string, { mime: string; ext: string }> = {
  jpeg: { mime: 'image/jpeg', ext: 'jpg' },
  png: { mime: 'image/png', ext: 'png' },
  webp: { mime: 'image/webp', ext: 'webp' },
};

export type UploadRow = Selectable<UploadTable>;

export interface StoredUpload {
  row: UploadRow;
  duplicate: boolean;
}

function invalid(field: string, text: string): ValidationError {
  return new ValidationError({ [field]: [text] });
}

/**
 * Checks that an image (its bytes, or a file of `size` bytes: sharp reads it from disk, never whole
 * into memory) is a decodable JPEG, PNG or WebP within the limits; its displayed size.
 */
export async function inspectImage(input: Buffer | { path: string; size: number }, field = 'datafile'): Promise<{ mime: string; ext: string; width: number; height: number }> {
  const size = Buffer.isBuffer(input) ? input.length : input.size;
  const source = Buffer.isBuffer(input) ? input : input.path;
  if (size === 0) throw invalid(field, 'The submitted file is empty.');
  if (size > MAX_UPLOAD_BYTES) throw invalid(field, `The file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB.`);
  let meta: Metadata;
  try {
    meta = await sharp(source, { limitInputPixels: false }).metadata();
  } catch {
    throw invalid(field, 'Upload a valid image. The file you uploaded was either not an image or a corrupted image.');
  }
  const format = FORMATS[meta.format ?? ''];
  if (!format) throw invalid(field, `Unsupported image format "${meta.format}": upload a JPEG, PNG or WebP image.`);
  if (!meta.width || !meta.height) throw invalid(field, 'Upload a valid image. The image has no size.');
  if (meta.width * meta.height > MAX_UPLOAD_PIXELS) {
    throw invalid(field, `The image has ${meta.width * meta.height} pixels; at most ${MAX_UPLOAD_PIXELS} are accepted.`);
  }
  // Decode a tiny version: catches files with a valid header but truncated or corrupt pixel data.
  try {
    await sharp(source, { failOn: 'truncated' }).resize(8, 8, { fit: 'fill' }).raw().toBuffer();
  } catch {
    throw invalid(field, 'Upload a valid image. The file you uploaded was either not an image or a corrupted image.');
  }
  const rotated = (meta.orientation ?? 1) >= 5;
  return { ...format, width: rotated ? meta.height : meta.width, height: rotated ? meta.width : meta.height };
}

export function uploadsDir(dataDir: string): string {
  return path.join(dataDir, 'uploads');
}

export function uploadFilePath(dataDir: string, row: Pick<UploadTable, 'file'>): string {
  return path.join(uploadsDir(dataDir), row.file);
}

async function writeDurably(target: string, bytes: Buffer): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, bytes);
    await moveDurably(tmp, target);
  } catch (error) {
    // A disk that filled up mid-write keeps no half file (it would hold the space it lacks).
    await rm(tmp, { force: true });
    throw error;
  }
}

/** Moves a file already on disk (a multipart part's temp file) into place, durably. */
async function moveDurably(from: string, target: string): Promise<void> {
  const fh = await open(from, 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
  await mkdir(path.dirname(target), { recursive: true });
  await rename(from, target);
}

interface UploadOptions {
  sourceUrl?: string;
  field?: string;
}

/** Stores an image (or finds the identical one stored before). */
export async function storeUpload(db: Kysely<Database>, dataDir: string, bytes: Buffer, opts: UploadOptions = {}): Promise<StoredUpload> {
  const info = await inspectImage(bytes, opts.field);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return storeInspected(db, dataDir, { ...info, sha256, size: bytes.length }, (target) => writeDurably(target, bytes), opts);
}

/**
 * Stores an image received as a file (path, size and SHA-256 known from streaming it to disk), moving
 * the file into the store rather than reading it into memory. The file is left in place when the image
 * is refused or already stored: its owner (the request) removes it.
 */
export async function storeUploadFile(db: Kysely<Database>, dataDir: string, file: { path: string; size: number; sha256: string }, opts: UploadOptions = {}): Promise<StoredUpload> {
  const info = await inspectImage(file, opts.field);
  return storeInspected(db, dataDir, { ...info, sha256: file.sha256, size: file.size }, (target) => moveDurably(file.path, target), opts);
}

async function storeInspected(
  db: Kysely<Database>,
  dataDir: string,
  info: { mime: string; ext: string; width: number; height: number; sha256: string; size: number },
  place: (target: string) => Promise<void>,
  opts: UploadOptions,
): Promise<StoredUpload> {
  const { sha256 } = info;
  const existing = await db.selectFrom('uploads').selectAll().where('sha256', '=', sha256).executeTakeFirst();
  if (existing) return { row: existing, duplicate: true };
  const file = path.join(sha256.slice(0, 2), `${sha256}.${info.ext}`);
  await place(path.join(uploadsDir(dataDir), file));
  return write(db, async (ctx) => {
    const trx = ctx.trx;
    // A concurrent upload of the same bytes may have committed meanwhile.
    const again = await trx.selectFrom('uploads').selectAll().where('sha256', '=', sha256).executeTakeFirst();
    if (again) return { row: again, duplicate: true };
    const at = now();
    const row = {
      id: newId(),
      sha256,
      file,
      mime: info.mime,
      bytes: info.size,
      width: info.width,
      height: info.height,
      token: randomBytes(24).toString('hex'),
      source_url: opts.sourceUrl ?? null,
      created_at: at,
      updated_at: at,
    };
    const inserted = await trx.insertInto('uploads').values(row).returning('data_id').executeTakeFirstOrThrow();
    ctx.changed('upload', row.id);
    return { row: { ...row, data_id: Number(inserted.data_id) }, duplicate: false };
  });
}

export async function getUpload(db: Kysely<Database>, id: string): Promise<UploadRow> {
  const row = await db.selectFrom('uploads').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw new NotFoundError('upload');
  return row;
}

/** Which of `ids` name no upload. */
export async function missingUploads(db: Kysely<Database>, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await db.selectFrom('uploads').select('id').where('id', 'in', [...ids]).execute();
  const have = new Set(found.map((r) => r.id));
  return ids.filter((id) => !have.has(id));
}

/** The image's capability URL path: unguessable, so it can sit in an <img src> without a header. */
export function uploadUrlPath(row: Pick<UploadTable, 'id' | 'token'>): string {
  return `/api/v1.5/uploads/${encodeURIComponent(row.id)}/content/${row.token}/`;
}
