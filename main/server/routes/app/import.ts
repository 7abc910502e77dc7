// POST /api/app/v1/import/: the master-data import (the same code as `npm run cli -- import FILE`).
// Takes the JSON document as the body, a CSV body (text/csv) with ?entity=, or a multipart upload
// with the file in `file` (and `entity` for a CSV). Admin keys only.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { readFile } from 'node:fs/promises';
import { Type } from 'typebox';
import { RejectedError } from '../../domain/errors.js';
import { parseCsvImport, parseJsonImport } from '../../domain/import-files.js';
import { importMasterData } from '../../domain/import.js';
import { requireRole } from '../../http/roles.js';
import { errorResponses } from '../../schemas/common.js';
import { ImportDocument, ImportSummary } from '../../schemas/import.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export const IMPORT_BODY_LIMIT = 64 * 1024 * 1024;

const EntityQuery = Type.Object({
  entity: Type.Optional(Type.String({ maxLength: 64, description: 'Entity of a CSV body (sku, brands, ...)' })),
});

async function documentOf(request: FastifyRequest): Promise<unknown> {
  const entity = (request.query as { entity?: string }).entity;
  const file = request.multipartFiles?.find((f) => f.field === 'file' || f.field === 'datafile');
  if (request.isMultipart()) {
    if (!file) throw new RejectedError({ detail: 'No file was submitted: send it in the "file" field.' });
    const fields = request.body as Record<string, unknown>;
    let text: string;
    try {
      text = utf8.decode(await readFile(file.path));
    } catch {
      throw new RejectedError({ detail: 'The import file is not valid UTF-8.' });
    }
    const isCsv = file.filename.toLowerCase().endsWith('.csv') || file.mimetype === 'text/csv';
    const csvEntity = (typeof fields.entity === 'string' ? fields.entity : undefined) ?? entity;
    if (!isCsv) return parseJsonImport(text);
    if (!csvEntity) throw new RejectedError({ detail: 'A CSV import needs "entity" (sku, brands, ...).' });
    return parseCsvImport(text, csvEntity);
  }
  if (typeof request.body === 'string') {
    if (!entity) throw new RejectedError({ detail: 'A CSV import needs ?entity= (sku, brands, ...).' });
    return parseCsvImport(request.body, entity);
  }
  return request.body;
}

const importRoute: FastifyPluginAsync = async (app) => {
  app.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: IMPORT_BODY_LIMIT }, (_request, body, done) => done(null, body));
  app.post('/import/', {
    bodyLimit: IMPORT_BODY_LIMIT,
    preHandler: requireRole('admin'),
    schema: {
      tags: ['app: import'],
      summary: 'Import master data in one transaction (all or nothing; failed rows are reported)',
      consumes: ['application/json', 'text/csv', 'multipart/form-data'],
      multipartFiles: { file: 'The import file: JSON, or CSV (a .csv name or text/csv type) with `entity`' },
      multipartFields: { entity: Type.String({ maxLength: 64, description: 'Entity of a CSV file (sku, brands, ...)' }) },
      querystring: EntityQuery,
      body: Type.Union([ImportDocument, Type.String({ description: 'CSV of one entity (text/csv)' })]),
      response: { 200: ImportSummary, ...errorResponses },
    },
  }, async (request) => importMasterData(app.db, await documentOf(request), 'api'));
};
export default importRoute;
