// Throttling as DRF does it: 429 {"detail": "Request was throttled. Expected available in N seconds."}
// with Retry-After. Only routes that opt in are limited; /recognize takes RECOGNIZE_RATE_LIMIT.
import rateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * @fastify/rate-limit for the routes that opt in. Their limit is a route-level onRequest hook, so it
 * runs after the global auth and roles hooks, and counts per the key auth found.
 */
export const rateLimitPlugin = fp(
  async (app: FastifyInstance) => {
    await app.register(rateLimit, { global: false });
  },
  { name: 'shelf-audit-rate-limit', dependencies: ['shelf-audit-auth'] },
);

/**
 * Per API key, counted on the root of the chain of keys that created it (domain/api-keys.ts): keys
 * minted by one admin key share its budget, so minting keys does not raise the limit. The global auth
 * hook runs before route-level hooks; without a key, the client address.
 */
function perKey(request: FastifyRequest): string {
  return request.apiKey ? `key:${request.apiKey.root_key_id}` : `ip:${request.ip}`;
}

/** The interface's limit for POST /api/v1.5/recognize/: 100 requests a minute per key (per root key, above). */
export const RECOGNIZE_RATE_LIMIT = {
  max: 100,
  timeWindow: 60_000,
  hook: 'onRequest' as const,
  keyGenerator: perKey,
  errorResponseBuilder: (_request: FastifyRequest, context: { ttl: number }) => {
    const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
    const error = new Error(`Request was throttled. Expected available in ${seconds} seconds.`) as Error & { statusCode: number };
    error.statusCode = 429;
    return error;
  },
};

/** Route config for /recognize: `config: recognizeRouteConfig` (keeps auth on). */
export const recognizeRouteConfig = { auth: true, rateLimit: RECOGNIZE_RATE_LIMIT };
