// Fastify answers 404 when a path exists but not for the request's method; DRF answers 405 with an
// `Allow` header. A second router (the same find-my-way Fastify uses) mirrors every registered route
// so the not-found handler can tell the two cases apart and list the allowed methods.
import FindMyWay from 'find-my-way';
import type { FastifyInstance, RouteOptions } from 'fastify';

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
