// Errors that happen before a request reaches a route: an unparsable request line or headers (Node's
// `clientError`), a bad percent-escape or an over-long path segment (Fastify's framework errors), a
// request without a Host header. Each answers JSON in DRF's shape with DRF's status, like every other
// error, and never echoes the request back.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import http from 'node:http';
import type { Socket } from 'node:net';
import { detail } from './errors.js';

const MALFORMED = 'Malformed request.';

/** Node's raw-socket errors: the request could not even be parsed, so no Fastify reply exists. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  let status = 400;
  let text = MALFORMED;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') [status, text] = [408, 'Request timed out.'];
  else if (error.code === 'HPE_HEADER_OVERFLOW') [status, text] = [431, 'Request header fields too large.'];
  const body = JSON.stringify(detail(text));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Fastify's errors raised while routing (FST_ERR_BAD_URL, FST_ERR_MAX_PARAM_LENGTH, ...). */
export function frameworkErrors(error: Error & { statusCode?: number }, _request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode === 414 ? 414 : 400;
  void reply.code(status).send(detail(status === 414 ? 'Request-URI too long.' : MALFORMED));
}

/**
 * HTTP/1.1 requires Host; Node would answer an empty 400 of its own, so the server lets such requests
 * through (`requireHostHeader: false`) and this onRequest hook refuses them in DRF's shape.
 */
async function requireHost(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (!request.headers.host && request.raw.httpVersion === '1.1') return reply.code(400).send(detail(MALFORMED));
}

/** The Host check, the first onRequest hook: nothing else runs for a request without one. */
export const hostCheckPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', requireHost);
  },
  { name: 'shelf-audit-host-check' },
);
