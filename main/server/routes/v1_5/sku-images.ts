// /api/v1.5/sku/{id}/images/: the reference images of an SKU, which identification compares
// products against. POST takes JSON {image: <upload id>, crop?} or multipart with the file in
// `datafile` (uploaded on the way); the image's descriptors are computed and stored right away.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ValidationError } from '../../domain/errors.js';
import { envelope, pageOf, readFormPaging } from '../../http/pagination.js';
import { addSkuImage, deleteSkuImage, listSkuImages, type SkuImageRecord } from '../../recognition/identification/references.js';
import { getUpload, storeUpload } from '../../recognition/uploads.js';
import { Envelope, IdParams, Ok, PageQuery, errorResponses } from '../../schemas/common.js';
import { SkuImageCreate, SkuImageItem, SkuImageParams } from '../../schemas/recognition.js';
import { absoluteUploadUrl } from './uploads.js';

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

  app.post('/sku/:id/images/', {
    schema: {
      tags,
      summary: 'Add a reference image: JSON {image: <upload id>, crop?: {x, y, w, h}} or multipart with the file in `datafile`',
      params: IdParams,
      body: SkuImageCreate,
      response: { 201: SkuImageItem, ...errorResponses },
    },
  }, async (request, reply) => {
    const body = request.body;
    let upload = body.image;
    const file = (request.multipartFiles ?? []).find((f) => f.field === 'datafile' || f.field === 'file');
    if (file) upload = (await storeUpload(app.db, app.dataDir, file.data, { field: file.field })).row.id;
    if (upload === undefined) throw new ValidationError({ image: ['This field is required.'] });
    const record = await addSkuImage(app.db, app.dataDir, request.params.id, { upload, crop: body.crop ?? null });
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
