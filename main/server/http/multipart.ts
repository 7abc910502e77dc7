// Multipart bodies, streamed: each file part goes to a temp file under
// DATA_DIR/incoming while its SHA-256 is computed, so no upload is held in memory whole; text parts
// are read (1 MiB at most) and must be UTF-8, as JSON and urlencoded text must. The temp files of a
// request are removed when its response ends, whatever happened (a route moves the ones it keeps).
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ValidationError } from '../domain/errors.js';
import { HttpError, detail } from './errors.js';
import { jsonNestsDeeperThan } from './input-values.js';

export const FILE_SIZE_LIMIT = 25 * 1024 * 1024;
export const MAX_FILES = 20;
export const MAX_FIELDS = 200;
export const FIELD_SIZE_LIMIT = 1024 * 1024;
/** All files of one request together: bounds the disk one request can fill. */
export const REQUEST_FILES_LIMIT = 512 * 1024 * 1024;

/** A file part of a multipart body, on disk until the response ends. */
export interface UploadedFile {
  field: string;
  filename: string;
  mimetype: string;
  /** The temp file holding the part's bytes. */
  path: string;
  size: number;
  sha256: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Files of a multipart body (the other fields are in `body`). Empty for other bodies. */
    multipartFiles: UploadedFile[];
  }
}

export function incomingDir(dataDir: string): string {
  return path.join(dataDir, 'incoming');
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const tooLarge = () => new HttpError(413, detail('Request body is too large.'));

/** The bytes of a text part, refused past `limit`. */
async function readText(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** A text part as a value: JSON when the part says so (as @fastify/multipart read it), else text. */
function fieldValue(name: string, bytes: Buffer, mimetype: string): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new HttpError(400, detail(`Multipart form parse error - the field "${name}" is not valid UTF-8.`));
  }
  if (!mimetype.startsWith('application/json')) return text;
  try {
    if (jsonNestsDeeperThan(text)) throw new Error('too deep');
    return JSON.parse(text, (key, value) => {
      if (key === '__proto__') throw new Error('__proto__');
      return value;
    });
  } catch {
    throw new ValidationError({ [name]: ['Value must be valid JSON.'] });
  }
}

async function readParts(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const dir = path.join(incomingDir(request.server.dataDir), `${Date.now()}-${randomBytes(6).toString('hex')}`);
  let made = false;
  const removeDir = () => (made ? rm(dir, { recursive: true, force: true }).catch((e) => request.log.error({ err: e }, 'removing temp upload files failed')) : Promise.resolve());
  reply.raw.once('close', () => void removeDir());
  // No prototype: a part named `__proto__` is refused by the parser, this keeps the rest plain data.
  const fields: Record<string, unknown> = Object.create(null);
  const files: UploadedFile[] = [];
  request.multipartFiles = files;
  let fieldCount = 0;
  let total = 0;
  try {
    for await (const part of request.parts()) {
      // Every part arrives as a stream (isPartAFile below): a part without a filename is a text field.
      if (part.type !== 'file') continue;
      if (part.filename === undefined) {
        if (++fieldCount > MAX_FIELDS) throw tooLarge();
        const value = fieldValue(part.fieldname, await readText(part.file, FIELD_SIZE_LIMIT), part.mimetype);
        const prev = fields[part.fieldname];
        fields[part.fieldname] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
        continue;
      }
      if (files.length >= MAX_FILES) throw tooLarge();
      if (!made) {
        await mkdir(dir, { recursive: true });
        made = true;
      }
      const target = path.join(dir, String(files.length));
      const hash = createHash('sha256');
      let size = 0;
      const count = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          total += chunk.length;
          if (total > REQUEST_FILES_LIMIT) return done(tooLarge());
          hash.update(chunk);
          done(null, chunk);
        },
      });
      await pipeline(part.file, count, createWriteStream(target));
      // busboy stops a file at FILE_SIZE_LIMIT and marks it truncated.
      if (part.file.truncated) throw tooLarge();
      files.push({ field: part.fieldname, filename: part.filename, mimetype: part.mimetype || 'application/octet-stream', path: target, size, sha256: hash.digest('hex') });
    }
  } catch (error) {
    await removeDir();
    throw error;
  }
  request.body = fields;
}

/** Temp files left by a process that died mid-request (an hour old: no live request holds them). */
async function removeStale(dataDir: string): Promise<void> {
  const root = incomingDir(dataDir);
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names) {
    const full = path.join(root, name);
    const info = await stat(full).catch(() => null);
    if (info && Date.now() - info.mtimeMs > 3_600_000) await rm(full, { recursive: true, force: true }).catch(() => {});
  }
}

export async function registerMultipart(app: FastifyInstance): Promise<void> {
  app.decorateRequest('multipartFiles', null as unknown as UploadedFile[]);
  await app.register(multipart, {
    // Text parts too arrive as streams, so their bytes can be checked as UTF-8 (the parser would
    // replace invalid ones with U+FFFD); the counts of each kind are checked in readParts.
    isPartAFile: () => true,
    limits: { fileSize: FILE_SIZE_LIMIT, files: MAX_FILES + MAX_FIELDS, parts: MAX_FILES + MAX_FIELDS + 1, fieldSize: FIELD_SIZE_LIMIT },
  } as Parameters<typeof multipart>[1]);
  app.addHook('preValidation', async (request, reply) => {
    request.multipartFiles = [];
    if (request.isMultipart()) await readParts(request, reply);
  });
  app.addHook('onReady', async () => removeStale(app.dataDir));
}
