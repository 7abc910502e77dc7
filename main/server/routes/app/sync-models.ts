// /api/app/v1/sync/models/ on the central (device keys): the detector, embedder and price-tag model it offers, with
// their version and checksum, and the files themselves. Laptops verify the checksum and switch between jobs (docs/sync.md).
// A central with a bucket offers what the bucket's offer names (sync/central/bucket.ts), the same on every process.
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { HttpError, detail } from '../../http/errors.js';
import { modelsDir, readModelChoice, type ModelKind } from '../../recognition/model-store.js';
import { Detail, errorResponses } from '../../schemas/common.js';
import { ModelContentParams, OfferedModels } from '../../schemas/sync.js';
import { deviceOnRequest } from '../../sync/central/device-auth.js';
import { modelKey, readOffer } from '../../sync/central/bucket.js';
import type { OfferedModelsBody } from '../../schemas/sync.js';

/** How long a process reuses the bucket's offer: laptops ask on every sync round. */
const OFFER_TTL_MS = 5_000;

const syncModels: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['app: sync'];
  const onRequest = deviceOnRequest(app.db);
  const objects = app.objectStore;
  let cached: { at: number; offer: Promise<OfferedModelsBody> } | null = null;
  const bucketOffer = (): Promise<OfferedModelsBody> => {
    if (!objects) throw new Error('no bucket');
    if (!cached || Date.now() - cached.at > OFFER_TTL_MS) {
      const offer = readOffer(objects);
      cached = { at: Date.now(), offer };
      offer.catch(() => (cached = null));
    }
    return cached.offer;
  };

  app.get('/sync/models/', {
    config: { auth: false },
    onRequest,
    schema: { tags, summary: 'The models the central offers (detector, embedder, price-tag detector): version, checksum, size (device key)', response: { 200: OfferedModels, ...errorResponses, 426: Detail } },
  }, async () => {
    if (objects) return bucketOffer();
    const offer = (kind: ModelKind) => {
      const { current } = readModelChoice(app.dataDir, kind);
      return current ? { version: current.version, sha256: current.sha256, bytes: current.bytes } : null;
    };
    return { detector: offer('detector'), embedder: offer('embedder'), tags: offer('tags') };
  });

  app.get('/sync/models/:kind/:sha256/', {
    config: { auth: false },
    onRequest,
    schema: { tags, summary: "An offered model's file (device key); 404 once another replaced it", params: ModelContentParams },
  }, async (request, reply) => {
    if (objects) {
      const { kind, sha256 } = request.params;
      const offered = (await bucketOffer())[kind];
      const body = offered?.sha256 === sha256 ? await objects.get(modelKey(kind, sha256)) : null;
      if (!offered || !body) throw new HttpError(404, detail('The central does not offer this model (any more).'));
      reply.header('content-type', 'application/octet-stream').header('content-length', offered.bytes);
      return reply.send(body);
    }
    const { current } = readModelChoice(app.dataDir, request.params.kind);
    if (!current || current.sha256 !== request.params.sha256) throw new HttpError(404, detail('The central does not offer this model (any more).'));
    reply.header('content-type', 'application/octet-stream').header('content-length', current.bytes);
    return reply.send(createReadStream(path.join(modelsDir(app.dataDir), current.file)));
  });
};
export default syncModels;
