// /api/app/v1/info/: versions and where the data lives.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Info } from '../../schemas/app.js';
import { errorResponses } from '../../schemas/common.js';
import { modelVersionAsync } from '../../recognition/detector/model-version.js';
import { currentModelPath } from '../../recognition/model-store.js';
import { embedderModelVersionAsync } from '../../recognition/identification/embedding.js';
import { modelVersionAsync as fileVersionAsync } from '../../recognition/model-files.js';
import { priceTagModelPath } from '../../recognition/prices/tag-detector.js';
import { isPostgres } from '../../storage/dialect.js';
import { APP_VERSION } from '../../config/version.js';

const info: FastifyPluginAsyncTypebox = async (app) => {
  // Hashing the models (11 MB) is the slow part of the answer: done as the server starts, a chunk at a
  // time, so the app's first /info (its key check) neither waits for it nor holds other requests.
  const versions = () =>
    Promise.all([
      modelVersionAsync(currentModelPath(app.dataDir) ?? app.serverConfig.settings.detectorModel ?? undefined),
      embedderModelVersionAsync(),
      fileVersionAsync(() => currentModelPath(app.dataDir, 'tags') ?? priceTagModelPath()),
    ]);
  app.warmUp('model versions', versions);
  app.get('/info/', {
    schema: { tags: ['app: info'], summary: 'App version, model version, data directory', response: { 200: Info, ...errorResponses } },
  }, async () => {
    const [model_version, embedder_version, tag_model_version] = await versions();
    return {
      app_version: APP_VERSION,
      model_version,
      embedder_version,
      tag_model_version,
      data_dir: app.dataDir,
      database: isPostgres(app.db) ? 'postgresql' : 'sqlite',
      node_version: process.versions.node,
    };
  });
};
export default info;
