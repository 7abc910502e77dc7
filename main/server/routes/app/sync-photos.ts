// /api/app/v1/sync/photos/ on the central (device keys): which photos it lacks, the tus endpoint that
// receives them (sync/central/photos.ts), and their content for supervisors' laptops. docs/sync.md.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, detail } from '../../http/errors.js';
import { Detail, errorResponses } from '../../schemas/common.js';
import { PHOTO_UPLOAD_PATH, PhotoContentParams, PhotosMissingRequest, PhotosMissingResponse } from '../../schemas/sync.js';
import { FileBlobStore, type BlobStore } from '../../storage/blob-store.js';
import { BUCKET_RETRY_AFTER_S, S3BlobStore } from '../../storage/object-store.js';
import { uploadsDir } from '../../domain/uploads.js';
import { deviceOnRequest } from '../../sync/central/device-auth.js';
import { createPhotoReceiver, isCentralPhoto, type PhotoReceiver } from '../../sync/central/photos.js';
import { uploadLocker } from '../../sync/central/upload-locker.js';

/**
 * Where the central keeps photos: the bucket when one is set (SHELF_AUDIT_S3_*), else files under
 * DATA_DIR/uploads (shared storage when several central processes serve).
 */
export interface SyncPhotoOptions {
  blobs?: BlobStore;
}

const syncPhotos: FastifyPluginAsyncTypebox<SyncPhotoOptions> = async (app, options) => {
  const objects = app.objectStore;
  const blobs = options.blobs ?? (objects ? new S3BlobStore(objects) : new FileBlobStore(uploadsDir(app.dataDir)));
  // Uploads in the bucket can continue on any process: their locks too are shared (PostgreSQL's advisory locks).
  const locker = objects ? uploadLocker(app.db) : undefined;
  const receiver: PhotoReceiver = await createPhotoReceiver(app.dataDir, blobs, { objects, locker });
  if (locker?.close) app.addHook('onClose', async () => locker.close?.());

  const tags = ['app: sync'];
  const onRequest = deviceOnRequest(app.db);

  app.post('/sync/photos/missing/', {
    config: { auth: false },
    onRequest,
    schema: { tags, summary: 'Which of these photos (blob keys) the central lacks (device key)', body: PhotosMissingRequest, response: { 200: PhotosMissingResponse, ...errorResponses, 426: Detail } },
  }, async (request) => ({ missing: await receiver.missing(request.body.files) }));

  app.get('/sync/photos/content/:file', {
    config: { auth: false },
    onRequest,
    schema: { tags, summary: "A photo's bytes, for a supervisor's laptop (device key); 404 while it has not reached the central", params: PhotoContentParams },
  }, async (request, reply) => {
    const key = `${request.params.file.slice(0, 2)}/${request.params.file}`;
    if (request.device!.role !== 'supervisor' && !(await isCentralPhoto(app.db, key))) {
      throw new HttpError(403, detail("Only supervisor devices fetch photos of other devices' visits."));
    }
    // Streamed through this process (not a presigned URL): the device key is checked on every read,
    // and laptops need reach only the central, never the bucket (docs/sync.md, "Scaling out").
    const size = await blobs.size(key);
    const body = size === null ? null : await blobs.read(key);
    if (size === null || !body) throw new HttpError(404, detail('This photo has not reached the central yet (pending sync).'));
    const ext = request.params.file.split('.')[1];
    reply.header('content-type', ext === 'jpg' ? 'image/jpeg' : `image/${ext}`);
    reply.header('content-length', size);
    return reply.send(body);
  });

  // tus: its own protocol (creation, HEAD for the offset, PATCH with the bytes); the body stays raw.
  app.addContentTypeParser('application/offset+octet-stream', (_request, _payload, done) => done(null));
  const tus = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    const res = reply.raw;
    // tus writes its own answers: a 503 (the bucket away, sync/central/photos.ts) gets its Retry-After here.
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => typeof res;
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      if (status === 503) res.setHeader('retry-after', String(BUCKET_RETRY_AFTER_S));
      return writeHead(status, ...rest);
    }) as typeof res.writeHead;
    await receiver.tus.handle(request.raw, res);
  };
  const prefix = PHOTO_UPLOAD_PATH.replace(/^\/api\/app\/v1/, '');
  const hidden = { hide: true } as Record<string, unknown>;
  app.route({ method: ['POST', 'HEAD', 'PATCH', 'DELETE', 'OPTIONS'], url: prefix, config: { auth: false }, onRequest, schema: hidden, handler: tus });
  app.route({ method: ['HEAD', 'PATCH', 'DELETE', 'OPTIONS'], url: `${prefix}/:upload`, config: { auth: false }, onRequest, schema: hidden, handler: tus });
};
export default syncPhotos;
