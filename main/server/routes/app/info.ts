// /api/app/v1/info/: versions and where the data lives.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Info } from '../../schemas/app.js';
import { errorResponses } from '../../schemas/common.js';
import { modelVersion } from '../../recognition/detector/model-version.js';
import { currentModelPath } from '../../recognition/model-store.js';
import { embedderModelVersion } from '../../recognition/identification/embedding.js';
import { isPostgres } from '../../storage/dialect.js';
import { APP_VERSION } from '../../config/version.js';

const info: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/info/', {
    schema: { tags: ['app: info'], summary: 'App version, model version, data directory', response: { 200: Info, ...errorResponses } },
  }, async () => ({
    app_version: APP_VERSION,
    model_version: modelVersion(currentModelPath(app.dataDir) ?? app.serverConfig.settings.detectorModel ?? undefined),
    embedder_version: embedderModelVersion(),
    data_dir: app.dataDir,
    database: isPostgres(app.db) ? 'postgresql' : 'sqlite',
    node_version: process.versions.node,
  }));
};
export default info;
