// Fastify answers 404 when a path exists but not for the request's method; DRF answers 405 with an
// `Allow` header. A second router (the same find-my-way Fastify uses) mirrors every registered route
// so the not-found handler can tell the two cases apart and list the allowed methods.
import FindMyWay from 'find-my-way';
import fp from 'fastify-plugin';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { detail, NOT_FOUND } from './errors.js';
import { sendSpaFallback } from './web-ui.js';

const PARSES = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];

export interface MethodIndex {
  /** Methods registered for the path of `url` (empty when the path is unknown). */
  allowed(url: string): string[];
}

export function collectMethods(app: FastifyInstance): MethodIndex {
  const router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });
  const methodsByPath = new Map<string, Set<string>>();
  app.addHook('onRoute', (route: RouteOptions) => {
    // Wildcards (the static web UI) would claim every path; they answer 404 themselves.
    if (route.url.includes('*')) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let set = methodsByPath.get(route.url);
    if (!set) {
      set = new Set();
      methodsByPath.set(route.url, set);
      const url = route.url;
      router.on('GET', url, () => undefined, { url });
    }
    for (const m of methods) set.add(m);
  });
  return {
    allowed(url) {
      const path = url.split('?')[0];
      const found = router.find('GET', path) as { store?: { url: string } } | null;
      const set = found?.store ? methodsByPath.get(found.store.url) : undefined;
      if (!set) return [];
      const methods = new Set(set);
      if (methods.has('GET')) methods.add('HEAD');
      methods.add('OPTIONS');
      return [...methods].sort();
    },
  };
}

export interface NotFoundOptions {
  /** The built web UI (ServerConfig.webRoot): unknown non-API GETs answer its index.html. */
  webRoot: string | null;
}

/**
 * The not-found handler: 405 with `Allow` (200 to OPTIONS) for a known path, the web UI's index.html
 * for other GETs outside the API, else 404. Registered before any route, so its onRoute hook sees them all.
 */
export const notFoundPlugin = fp(
  async (app: FastifyInstance, { webRoot }: NotFoundOptions) => {
    const methods = collectMethods(app);
    app.setNotFoundHandler(async (request, reply) => {
      const allowed = methods.allowed(request.url);
      if (allowed.length > 0) {
        reply.header('Allow', allowed.join(', '));
        if (request.method === 'OPTIONS') return reply.code(200).send({ renders: ['application/json'], parses: PARSES });
        return reply.code(405).send(detail(`Method "${request.method}" not allowed.`));
      }
      if (sendSpaFallback(request, reply, webRoot)) return reply;
      return reply.code(404).send(NOT_FOUND);
    });
  },
  { name: 'shelf-audit-not-found' },
);
