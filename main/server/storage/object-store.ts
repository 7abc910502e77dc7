// The central's S3-compatible bucket (docs/sync.md, "Scaling out"): photos under their blob keys
// (`ab/<sha256>.<ext>`, the same keys as the file store), the offered models under `models/`, and the
// tus uploads in progress (@tus/s3-store's objects, named by the upload's id). One client per process,
// made from the settings read once at start (config.ts); credentials come from the AWS SDK's own chain
// (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, or a shared credentials file: AWS_SHARED_CREDENTIALS_FILE
// and AWS_PROFILE), so no secret passes through this project's settings.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type * as S3 from '@aws-sdk/client-s3';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type { ObjectStoreSettings } from '../config/config.js';
import type { BlobStore } from './blob-store.js';
import { isBlobKey } from './blob-store.js';


// The SDK is loaded when a bucket is opened (ObjectStore.open): a laptop or a central without a
// bucket never loads it (about 0.1 s of every start otherwise). Before that no SDK error can exist.
let sdk: typeof S3 | undefined;

async function loadSdk(): Promise<typeof S3> {
  return (sdk ??= await import('@aws-sdk/client-s3'));
}

function isS3Exception(error: unknown): error is S3.S3ServiceException {
  return sdk !== undefined && error instanceof sdk.S3ServiceException;
}

/** The bucket could not be reached or answered with a server error: the caller answers 503, the client retries. */
export class BucketUnavailableError extends Error {}

/** Seconds a client is told to wait (Retry-After) when the bucket is unreachable. */
export const BUCKET_RETRY_AFTER_S = 5;

function isNotFound(error: unknown): boolean {
  if (!isS3Exception(error)) return false;
  return error.$metadata?.httpStatusCode === 404 || error.name === 'NotFound' || error.name === 'NoSuchKey';
}

/**
 * Whether an error from the SDK means "the bucket is not there right now" (network, timeout, 5xx,
 * throttling) rather than a refusal that a retry would not change (403 with bad credentials is a
 * misconfiguration and also answers 503: the laptop keeps its queue either way).
 */
export function isBucketFailure(error: unknown): boolean {
  if (error instanceof BucketUnavailableError) return true;
  if (isS3Exception(error)) {
    const status = error.$metadata?.httpStatusCode ?? 0;
    return status >= 500 || status === 403 || status === 429 || error.name === 'SlowDown';
  }
  const code = (error as { code?: string; name?: string } | null)?.code ?? (error as { name?: string } | null)?.name ?? '';
  return /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|TimeoutError|RequestTimeout|AbortError)$/.test(code);
}

export function s3ClientConfig(settings: ObjectStoreSettings): S3ClientConfig {
  return {
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.pathStyle,
    // A slow or absent bucket must fail a request in bounded time, so the laptop is told to come back.
    requestHandler: { connectionTimeout: Math.min(settings.timeoutMs, 5_000), requestTimeout: settings.timeoutMs, throwOnRequestTimeout: true },
    maxAttempts: 2,
    // Checksums only where S3 requires them: not every S3-compatible server knows the newer
    // x-amz-checksum-* headers; integrity is checked by Content-MD5 and the SHA-256 of each photo.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

/** SHA-256 (hex) and MD5 (base64) of a file, in one read. */
export async function fileDigests(file: string): Promise<{ sha256: string; md5: string; size: number }> {
  const sha = createHash('sha256');
  const md5 = createHash('md5');
  let size = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    sha.update(chunk as Buffer);
    md5.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: sha.digest('hex'), md5: md5.digest('base64'), size };
}

export class ObjectStore {
  readonly client: S3Client;
  readonly bucket: string;

  private constructor(
    readonly settings: ObjectStoreSettings,
    private readonly s3: typeof S3,
  ) {
    this.client = new s3.S3Client(s3ClientConfig(settings));
    this.bucket = settings.bucket;
  }

  /** A client of the bucket the settings name (the SDK loaded on the first). */
  static async open(settings: ObjectStoreSettings): Promise<ObjectStore> {
    return new ObjectStore(settings, await loadSdk());
  }

  /** Runs one SDK call; a failure of the bucket itself becomes BucketUnavailableError. */
  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isBucketFailure(error)) throw new BucketUnavailableError(`the bucket could not ${what}: ${(error as Error).name ?? ''} ${(error as Error).message ?? error}`.trim());
      throw error;
    }
  }

  /** Size and user metadata, or null when there is no such object. */
  async head(key: string): Promise<{ size: number; etag: string; metadata: Record<string, string> } | null> {
    try {
      const r = await this.call('answer', () => this.client.send(new this.s3.HeadObjectCommand({ Bucket: this.bucket, Key: key })));
      return { size: Number(r.ContentLength ?? 0), etag: (r.ETag ?? '').replaceAll('"', ''), metadata: r.Metadata ?? {} };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /** The object's bytes as a stream (null when there is none); `range`: e.g. `bytes=0-65535`. */
  async get(key: string, range?: string): Promise<Readable | null> {
    try {
      const r = await this.call('be read', () => this.client.send(new this.s3.GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range })));
      return r.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async getBuffer(key: string, range?: string): Promise<Buffer | null> {
    const body = await this.get(key, range);
    if (!body) return null;
    const chunks: Buffer[] = [];
    for await (const c of body) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  /**
   * Uploads a file, verified: the server checks the bytes against Content-MD5 (refusing a body that
   * changed on the way), and the SHA-256, when given, is kept in the object's metadata so that a later
   * run (the migration's resume) knows an object is this file without reading it back.
   */
  async putFile(key: string, file: string, digests?: { sha256: string; md5: string; size: number }): Promise<void> {
    const d = digests ?? (await fileDigests(file));
    const size = (await stat(file)).size;
    if (size !== d.size) throw new Error(`${file} changed while it was being read`);
    await this.call('store the object', () =>
      this.client.send(
        new this.s3.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: createReadStream(file), ContentLength: size, ContentMD5: d.md5, Metadata: { sha256: d.sha256 } }),
      ),
    );
  }

  async putBuffer(key: string, body: Buffer, contentType = 'application/octet-stream'): Promise<void> {
    const md5 = createHash('md5').update(body).digest('base64');
    await this.call('store the object', () => this.client.send(new this.s3.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentMD5: md5, ContentType: contentType })));
  }

  /** A copy made by the server itself: no byte passes through this process. */
  async copy(from: string, to: string, metadata: Record<string, string>): Promise<void> {
    await this.call('copy the object', () =>
      this.client.send(
        new this.s3.CopyObjectCommand({ Bucket: this.bucket, Key: to, CopySource: `${this.bucket}/${encodeURIComponent(from).replaceAll('%2F', '/')}`, Metadata: metadata, MetadataDirective: 'REPLACE' }),
      ),
    );
  }

  async remove(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.call('remove objects', () => this.client.send(new this.s3.DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } })));
  }

  destroy(): void {
    this.client.destroy();
  }
}

/** The photos' blob store in the bucket: the same keys as FileBlobStore, the bytes in the object store. */
export class S3BlobStore implements BlobStore {
  constructor(readonly objects: ObjectStore) {}

  private checked(key: string): string {
    if (!isBlobKey(key)) throw new Error(`not a blob key: ${key}`);
    return key;
  }

  async size(key: string): Promise<number | null> {
    return (await this.objects.head(this.checked(key)))?.size ?? null;
  }

  async putFile(key: string, from: string): Promise<void> {
    await this.objects.putFile(this.checked(key), from);
  }

  async read(key: string): Promise<Readable | null> {
    return this.objects.get(this.checked(key));
  }
}
