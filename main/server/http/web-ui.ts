// The built renderer, served at `/` with the app's CSP: static files, and index.html for any other
// non-API GET so the single-page app's own routes survive a reload.
import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
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
    // Vite names every file under assets/ by its content's hash, so a browser (the desktop window
    // above all, opened many times a day) keeps them without asking again, and Chromium keeps their
    // compiled code too; index.html, which names them, is asked for again every time.
    const assets = join(webRoot, 'assets') + sep;
    await scope.register(fastifyStatic, {
      root: webRoot,
      setHeaders: (reply, filePath) => {
        reply.headers(securityHeaders);
        if (filePath.startsWith(assets)) reply.header('Cache-Control', 'public, max-age=31536000, immutable');
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
