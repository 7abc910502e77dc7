// DRF's error bodies for everything that can go wrong in a request: validation, unknown records,
// unparsable or oversized bodies, wrong media types, throttling. Nothing a client sends may produce a
// 500, an HTML page or a stack trace.
import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ConflictError, ForbiddenError, NotFoundError, RejectedError, ValidationError } from '../domain/errors.js';
import { drfFieldErrors, type SchemaError } from '../domain/field-errors.js';
import { BUCKET_RETRY_AFTER_S, BucketUnavailableError } from '../storage/object-store.js';
import { DATABASE_RETRY_AFTER_S, isDatabaseUnavailable } from '../storage/database-unavailable.js';
import { isDiskFull } from '../storage/disk-full.js';

/** An HTTP-level failure with a ready DRF body (auth, throttling, method not allowed). */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.detail === 'string' ? body.detail : `HTTP ${statusCode}`);
    this.name = 'HttpError';
  }
}

export const detail = (text: string) => ({ detail: text });
export const NOT_FOUND = detail('Not found.');

export function notFound(): HttpError {
  return new HttpError(404, NOT_FOUND);
}

const malformed = detail('Malformed request.');

function mediaType(request: FastifyRequest): string {
  return String(request.headers['content-type'] ?? '').split(';')[0].trim();
}

export function drfErrorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof HttpError) return reply.code(error.statusCode).headers(error.headers).send(error.body);
  if (error instanceof ValidationError) return reply.code(400).send(error.fields);
  if (error instanceof NotFoundError) return reply.code(404).send(NOT_FOUND);
  if (error instanceof ForbiddenError) return reply.code(403).send(detail(error.message));
  if (error instanceof RejectedError) return reply.code(400).send(error.report);
  if (error instanceof ConflictError) return reply.code(409).send(error.report);
  // The central's bucket away (storage/object-store.ts): nothing was stored or acknowledged; come back.
  if (error instanceof BucketUnavailableError) {
    return reply.code(503).header('retry-after', String(BUCKET_RETRY_AFTER_S)).send(detail('The photo and model store is unreachable for now: nothing was lost; try again later.'));
  }
  // The central's PostgreSQL away (restarting, down, out of connections): the same request will do later.
  if (isDatabaseUnavailable(error)) {
    return reply.code(503).header('retry-after', String(DATABASE_RETRY_AFTER_S)).send(detail('The database is unavailable for now: try again later.'));
  }

  // The disk full (a laptop's day of photos): nothing of the request was kept; before the multipart rule
  // below, which would call a photo whose temporary file could not be written a malformed request.
  if (isDiskFull(error)) {
    return reply.code(507).send(detail('The disk is full: nothing was saved. Free some space on this computer and try again.'));
  }

  const e = error as FastifyError & { validation?: SchemaError[]; validationContext?: string };
  if (e.validation) {
    // A path parameter of the wrong kind (a word where an integer id goes) names no record: 404,
    // as DRF's URL patterns answer.
    if (e.validationContext === 'params') return reply.code(404).send(NOT_FOUND);
    const data = e.validationContext === 'querystring' ? request.query : request.body;
    return reply.code(400).send(drfFieldErrors(e.validation, data));
  }
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return reply.code(415).send(detail(`Unsupported media type "${mediaType(request)}" in request.`));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return reply.code(413).send(detail('Request body is too large.'));
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_PROTO_VIOLATION':
      return reply.code(400).send(malformed);
  }
  // The multipart parser (busboy) reports a truncated or garbled body as a bare Error.
  if (e.statusCode === undefined && mediaType(request).startsWith('multipart/')) return reply.code(400).send(malformed);
  const status = e.statusCode ?? 500;
  if (status === 429) {
    return reply.code(429).send(detail(e.message));
  }
  if (status >= 400 && status < 500) {
    // Other client errors raised by Fastify or a plugin (aborted or malformed multipart bodies...).
    return reply.code(status).send(status === 400 ? malformed : detail(e.message));
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send(detail('A server error occurred.'));
}

/** drfErrorHandler as the application's error handler: what any hook, parser or handler throws answers through it. */
export const errorHandlerPlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler(drfErrorHandler);
  },
  { name: 'shelf-audit-error-handler' },
);
