// /api/v1.5/sku/{id}/images/: the reference images of an SKU, which identification compares
// products against. POST takes JSON {image: <upload id>, crop?} or multipart with the file in `image`
// (as the OpenAPI description says; `datafile` and `file` too), uploaded on the way, and `crop` as
// JSON text; the image's descriptors are computed (on the analysis thread) and stored right away.
// /api/v1.5/sku_images/ (ours) lists the images of many SKUs at once, so a screen gets its products'
// pictures in one request.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Value } from 'typebox/value';
import { ValidationError } from '../../domain/errors.js';
import { envelope, pageOf, readFormPaging } from '../../http/pagination.js';
import { addSkuImage, checkCrop, deleteSkuImage, listManySkuImages, listSkuImages, requireSku, type SkuImageRecord } from '../../recognition/identification/references.js';
import { getUpload, inspectImage, storeUploadFile } from '../../domain/uploads.js';
import { keepInBucket } from '../../domain/upload-cache.js';
import { Envelope, IdParams, Ok, PageQuery, PageQueryProperties, errorResponses } from '../../schemas/common.js';
import { Type, type Static } from 'typebox';
import { Crop, SkuImageCreate, SkuImageItem, SkuImageListQuery, SkuImageParams } from '../../schemas/recognition.js';
import { absoluteUploadUrl } from './uploads.js';

/** The crop of a JSON body, or of a form body as JSON text; a 400 when the text is not a crop. */
function cropOf(value: SkuImageCreate['crop']): Static<typeof Crop> | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ValidationError({ crop: ['Value must be valid JSON.'] });
  }
  if (parsed === null) return null;
  if (!Value.Check(Crop, parsed)) throw new ValidationError({ crop: ['Expected {"x", "y", "w", "h"}: x, y at least 0, w, h at least 1.'] });
  return parsed;
}

const skuImages: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['sku reference images'];
  const withUrl = async (request: Parameters<typeof absoluteUploadUrl>[0], r: SkuImageRecord) => ({
    ...r,
    url: absoluteUploadUrl(request, await getUpload(app.db, r.upload)),
  });

  app.get('/sku/:id/images/', {
    schema: { tags, summary: 'List the reference images of an SKU', params: IdParams, querystring: PageQuery, response: { 200: Envelope(SkuImageItem), ...errorResponses } },
    preValidation: readFormPaging,
  }, async (request) => {
    const page = pageOf(request.query);
    const { count, results } = await listSkuImages(app.db, request.params.id, page);
    return envelope(request, page, count, await Promise.all(results.map((r) => withUrl(request, r))));
  });

  app.get('/sku_images/', {
    schema: {
      tags,
      summary: "List the reference images of many SKUs (`sku__in`), or only each one's first (`first=true`)",
      querystring: Type.Object({ ...PageQueryProperties, ...SkuImageListQuery.properties }),
      response: { 200: Envelope(SkuImageItem), ...errorResponses },
    },
    preValidation: readFormPaging,
  }, async (request) => {
    const page = pageOf(request.query);
    const { sku__in, first } = request.query;
    const skuIds = sku__in === undefined || sku__in === '' ? undefined : sku__in.split(',').filter((id) => id !== '');
    const { count, results } = await listManySkuImages(app.db, { skuIds, first }, page);
    return envelope(request, page, count, await Promise.all(results.map((r) => withUrl(request, r))));
  });

  app.post('/sku/:id/images/', {
    schema: {
      tags,
      summary: 'Add a reference image: JSON {image: <upload id>, crop?: {x, y, w, h}}, or multipart with the file in `image` and `crop` as JSON text',
      params: IdParams,
      body: SkuImageCreate,
      multipartFiles: { image: 'The image file (JPEG, PNG or WebP)', datafile: 'The image file, under its /uploads name (when `image` is not a file)' },
      response: { 201: SkuImageItem, ...errorResponses },
    },
  }, async (request, reply) => {
    const body = request.body;
    let upload = body.image;
    const files = request.multipartFiles ?? [];
    const file = ['image', 'datafile', 'file'].map((field) => files.find((f) => f.field === field)).find((f) => f !== undefined);
    const crop = cropOf(body.crop);
    // An unknown SKU, or a crop off the image, is refused before the file is stored: a refused request stores nothing.
    if (file) {
      await requireSku(app.db, request.params.id);
      checkCrop(crop, await inspectImage(file, file.field));
      const stored = (await storeUploadFile(app.db, app.dataDir, file, { field: file.field })).row;
      await keepInBucket(app.objectStore, app.dataDir, stored.file);
      upload = stored.id;
    }
    if (upload === undefined) throw new ValidationError({ image: ['This field is required.'] });
    const record = await addSkuImage(app.db, app.dataDir, app.recognitionAnalyzer, request.params.id, { upload, crop }, app.objectStore);
    reply.code(201);
    return withUrl(request, record);
  });

  app.delete('/sku/:id/images/:image_id/', {
    schema: { tags, summary: 'Remove a reference image', params: SkuImageParams, response: { 200: Ok, ...errorResponses } },
  }, async (request) => {
    const { id, image_id } = request.params;
    await deleteSkuImage(app.db, id, image_id);
    return { result: 'OK' as const };
  });
};
export default skuImages;
