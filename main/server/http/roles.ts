// What each API-key role may do, enforced for every route in one onRequest hook (after auth, before
// the body is parsed or the rate limit counts): reading (GET, HEAD, OPTIONS) needs read-only, any
// other method integration, and the families below more. `requireRole(role)` lets a route state its
// role where it is declared; the table here still covers it, so a route that forgets it is not open.
// Answers DRF's 403 {"detail": "You do not have permission to perform this action."}.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { roleAllows, type Role } from '../domain/api-keys.js';
import { HttpError, detail } from './errors.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Route families (by route pattern, whatever the method) that need more than the method does. */
const FAMILY_ROLES: Array<{ url: RegExp; role: Role }> = [
  // Keys, device enrolment, master-data import and where this laptop syncs: the instance's owner.
  { url: /^\/api\/app\/v1\/(keys|devices|import)\//, role: 'admin' },
  { url: /^\/api\/app\/v1\/sync\/settings\//, role: 'admin' },
  // The webhook signing secret lets its holder forge deliveries: integrations need it, readers do not.
  { url: /^\/api\/app\/v1\/webhook_deliveries\/secret\//, role: 'integration' },
];

export const PERMISSION_DENIED = 'You do not have permission to perform this action.';

/** The role a request to route `url` (its pattern) with `method` needs. */
export function requiredRole(method: string, url: string): Role {
  const family = FAMILY_ROLES.find((f) => f.url.test(url));
  if (family) return family.role;
  return READS.has(method) ? 'read-only' : 'integration';
}

function check(request: FastifyRequest, need: Role): void {
  // No API key: a public route, or one a device key authenticates (sync push/pull).
  if (request.apiKey && !roleAllows(request.apiKey.role, need)) throw new HttpError(403, detail(PERMISSION_DENIED));
}

/** The onRequest role check; it reads the key the auth plugin's hook, added before it, has set. */
export const rolesPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', async (request) => {
      if (request.is404) return;
      check(request, requiredRole(request.method, request.routeOptions.url ?? ''));
    });
  },
  { name: 'shelf-audit-roles', dependencies: ['shelf-audit-auth'] },
);

/** A route's own statement of the role it needs (checked again here; the central table already did). */
export function requireRole(role: Role): preHandlerAsyncHookHandler {
  return async (request) => check(request, role);
}
