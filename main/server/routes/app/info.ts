// /api/app/v1/info/: versions and where the data lives.
import { readFileSync } from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Info } from '../../schemas/app.js';
import { errorResponses } from '../../schemas/common.js';
import { APP_VERSION } from '../../version.js';

/** The shipped detector's version, from its model card (models/model-card.json), when present. */
function modelVersion(): string | null {
  for (const rel of ['../../../../models/model-card.json', '../../../../../models/model-card.json']) {
    try {
      const card = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { version?: unknown };
      if (typeof card.version === 'string') return card.version;
    } catch {
      // not at this level
    }
  }
  return null;
}

const info: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/info/', {
    schema: { tags: ['app: info'], summary: 'App version, model version, data directory', response: { 200: Info, ...errorResponses } },
  }, async () => ({
    app_version: APP_VERSION,
    model_version: modelVersion(),
    data_dir: app.dataDir,
    database: 'sqlite',
    node_version: process.versions.node,
  }));
};
export default info;
