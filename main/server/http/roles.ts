// Stand-in for issue 22's API-key roles (branch `harden` owns this file): `requireRole(role)` returns
// a preHandler. Until roles exist, every authenticated API key passes; the global auth hook has
// already refused requests without a valid key.
import type { preHandlerAsyncHookHandler } from 'fastify';

export function requireRole(_role: 'admin' | 'integration' | 'read-only'): preHandlerAsyncHookHandler {
  return async () => undefined;
}
