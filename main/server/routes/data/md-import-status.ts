// /api/data/v1.0/md_import_status/: when the last master-data import finished.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { lastImport } from '../../domain/data-api.js';
import { errorResponses } from '../../schemas/common.js';
import { ImportStatus } from '../../schemas/data-api.js';

const mdImportStatus: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/md_import_status/', {
    schema: { tags: ['data: md_import_status'], summary: 'Time of the last master-data import (null if none)', response: { 200: ImportStatus, ...errorResponses } },
  }, async () => ({ last_import_datetime: await lastImport(app.db) }));
};
export default mdImportStatus;
