// The built renderer, served at `/` with the app's CSP: static files, and index.html for any other
// non-API GET so the single-page app's own routes survive a reload.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONTENT_SECURITY_POLICY } from './content-security-policy.js';

const securityHeaders = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
};

export async function registerWebUi(app: FastifyInstance, webRoot: string): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, auth: false };
      route.schema = { ...route.schema, hide: true };
    });
    await scope.register(fastifyStatic, {
      root: webRoot,
      setHeaders: (reply) => {
        reply.headers(securityHeaders);
      },
    });
  });
}

/** SPA fallback for the not-found handler: true when it answered with index.html. */
export function sendSpaFallback(request: FastifyRequest, reply: FastifyReply, webRoot: string | null): boolean {
  if (!webRoot || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
  const path = request.url.split('?')[0];
  if (path.startsWith('/api/') || path === '/api' || path === '/health') return false;
  let html: Buffer;
  try {
    html = readFileSync(join(webRoot, 'index.html'));
  } catch {
    return false;
  }
  reply.code(200).headers(securityHeaders).type('text/html; charset=utf-8').send(html);
  return true;
}
