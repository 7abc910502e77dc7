// /api/v1.5/uploads/: upload an image (multipart, field `datafile` or `file`), upload one by URL,
// read an upload's record, and fetch the image itself through its capability URL.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import { HttpError, detail } from '../../http/errors.js';
import { getUpload, storeUpload, storeUploadFile, uploadUrlPath, type UploadRow } from '../../domain/uploads.js';
import { keepInBucket, localUploadFile } from '../../domain/upload-cache.js';
import { fetchImage } from '../../http/fetch-image.js';
import { IdParams, errorResponses } from '../../schemas/common.js';
import { UploadByUrlBody, UploadContentParams, UploadCreated, UploadFetched, UploadItem } from '../../schemas/recognition.js';
import { uploadQuality } from '../../domain/photo-quality.js';

export function absoluteUploadUrl(request: FastifyRequest, row: Pick<UploadRow, 'id' | 'token'>): string {
  return `${request.protocol}://${request.host}${uploadUrlPath(row)}`;
}

function present(request: FastifyRequest, row: UploadRow) {
  return { id: row.id, url: absoluteUploadUrl(request, row), width: row.width, height: row.height, created_date: row.created_at };
}

const uploads: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['uploads'];
  app.post('/uploads/', {
    schema: {
      tags,
      summary: 'Upload an image (multipart/form-data, file in `datafile` or `file`; JPEG, PNG or WebP, at most 25 MB and 50 megapixels)',
      consumes: ['multipart/form-data'],
      multipartFiles: { datafile: 'The image file (JPEG, PNG or WebP)', file: 'The image file, when not sent as `datafile`' },
      response: { 201: UploadCreated, ...errorResponses },
    },
  }, async (request, reply) => {
    const files = request.multipartFiles ?? [];
    const file = files.find((f) => f.field === 'datafile') ?? files.find((f) => f.field === 'file');
    if (!file) throw new ValidationError({ datafile: ['No file was submitted.'] });
    const { row, duplicate } = await storeUploadFile(app.db, app.dataDir, file, { field: file.field });
    await keepInBucket(app.objectStore, app.dataDir, row.file);
    // The pixel checks answer with the upload, so the auditor hears about a bad photo at the shelf.
    const quality = await uploadQuality(app.db, app.dataDir, row, app.objectStore);
    reply.code(201);
    return { ...present(request, row), duplicate, quality };
  });

  for (const path of ['/uploads/upload_by_url/', '/uploads_by_url/']) {
    app.post(path, {
      schema: { tags, summary: 'Upload an image from an http(s) URL (15 s timeout, 25 MB cap)', body: UploadByUrlBody, response: { 200: UploadFetched, ...errorResponses } },
    }, async (request) => {
      const { url } = request.body;
      const bytes = await fetchImage(url, { reach: app.serverConfig.settings.allowPrivateUrls ? 'any' : 'public' });
      const { row } = await storeUpload(app.db, app.dataDir, bytes, { sourceUrl: url, field: 'url' });
      await keepInBucket(app.objectStore, app.dataDir, row.file);
      return { ...present(request, row), quality: await uploadQuality(app.db, app.dataDir, row, app.objectStore) };
    });
  }

  app.get('/uploads/:id/', {
    schema: { tags, summary: 'Read an upload', params: IdParams, response: { 200: UploadItem, ...errorResponses } },
  }, async (request) => present(request, await getUpload(app.db, request.params.id)));

  app.get('/uploads/:id/content/:token/', {
    config: { auth: false },
    schema: {
      tags,
      summary: 'The image file. Needs no Authorization header: the token in the path is the credential (from the upload\'s `url`).',
      params: UploadContentParams,
    },
  }, async (request, reply) => {
    const { id, token } = request.params;
    const row = await getUpload(app.db, id).catch(() => null);
    if (!row || row.token !== token) throw new NotFoundError('upload');
    // Another central process may have received it: then it comes from the bucket (503 when that is away).
    const file = await localUploadFile(app.dataDir, app.objectStore, row);
    // On the central (or a supervisor's laptop) a record may arrive before its photo (docs/sync.md).
    if (!(await stat(file).catch(() => null))) throw new HttpError(404, detail('This photo has not reached this instance yet (pending sync).'));
    reply
      .header('Content-Type', row.mime)
      .header('Content-Length', String(row.bytes))
      .header('Cache-Control', 'private, max-age=31536000, immutable')
      .header('X-Content-Type-Options', 'nosniff');
    return reply.send(createReadStream(file));
  });
};
export default uploads;
