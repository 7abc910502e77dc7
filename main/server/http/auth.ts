// `Authorization: Token <key>` on every route unless the route says `config: { auth: false }`
// (health, OpenAPI description, docs page, static web UI). Texts and statuses are DRF's
// TokenAuthentication's. /recognize and /recognition_error demand a token too: they are writes, and
// the interface's silence about their header is not permission.
import { randomBytes } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { Kysely } from 'kysely';
import { verifyApiKey, type Role, type VerifiedApiKey } from '../domain/api-keys.js';
import type { Database } from '../storage/schema.js';
import { HttpError, detail } from './errors.js';
import { requestKeyStamp, stampSetOf } from './request-stamp.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Whether the route needs a token; true unless set to false. */
    auth?: boolean;
  }
  interface FastifyInstance {
    /** Every route with its auth requirement, collected as routes are added (tests enumerate it). */
    routeAuth(): Array<{ method: string; url: string; auth: boolean }>;
    /**
     * A key for the server's own `app.inject` requests (the warm-up's, http/warm-up.ts): held in this
     * process's memory only, never stored, accepted from no socket, valid until revoked.
     */
    internalKey(name: string, role: Role): InternalKey;
    /** How many internal keys live now (none once the warm-up ended; tests check that). */
    internalKeysAlive(): number;
  }
  interface FastifyRequest {
    /** The API key that authenticated the request (null on public routes); http/roles.ts checks its role. */
    apiKey: VerifiedApiKey | null;
  }
}

export interface InternalKey {
  /** What goes after `Token ` in the injected requests' Authorization header. */
  token: string;
  /** Ends the key: a request carrying it afterwards is refused as any unknown token. */
  revoke(): void;
}

const challenge = { 'WWW-Authenticate': 'Token' };
const unauthorized = (text: string) => new HttpError(401, detail(text), challenge);

export function routeNeedsAuth(config: { auth?: boolean } | undefined): boolean {
  return config?.auth !== false;
}

function tokenOf(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const parts = (header ?? '').split(' ').filter((p) => p.length > 0);
  if (parts.length === 0 || parts[0].toLowerCase() !== 'token') {
    throw unauthorized('Authentication credentials were not provided.');
  }
  if (parts.length === 1) throw unauthorized('Invalid token header. No credentials provided.');
  if (parts.length > 2) throw unauthorized('Invalid token header. Token string should not contain spaces.');
  return parts[1];
}

/** Bound on the verified keys remembered (a server sees few keys; a flood of valid ones starts over). */
const KEYS_KEPT = 1000;

/**
 * Verified keys remembered while the API keys are unchanged (the key stamp, storage/change-stamp.ts):
 * every request carries its key, and hashing it and reading its row is most of a small request's
 * cost. Not the database's change stamp: every record write would retire the keys (on PostgreSQL a
 * round trip per write). A revocation changes the keys, by this process or another, so it retires
 * every key remembered.
 */
function keyVerifier(db: Kysely<Database>) {
  let stamp: string | null = null;
  let kept = new Map<string, VerifiedApiKey>();
  /** `now`: the stamp as of the request. */
  return async (token: string, now: string | null): Promise<VerifiedApiKey | undefined> => {
    if (now === null) return verifyApiKey(db, token);
    if (now !== stamp) {
      stamp = now;
      kept = new Map();
    }
    const known = kept.get(token);
    if (known) return known;
    const key = await verifyApiKey(db, token);
    // Only valid keys: invalid tokens would let any client fill the map. No second stamp read: the key
    // was found valid after `now` was read, so it is valid for every request that reads `now` (a
    // revocation committed since would have changed the stamp those requests read).
    if (key && stamp === now) {
      if (kept.size >= KEYS_KEPT) kept = new Map();
      kept.set(token, key);
    }
    return key;
  };
}

export interface AuthOptions {
  db: Kysely<Database>;
}

/** The onRequest token check, `request.apiKey` and `app.routeAuth()`; keys are kept under the request's key stamp. */
export const authPlugin = fp(
  async (app: FastifyInstance, { db }: AuthOptions) => {
    const verify = keyVerifier(db);
    // The internal keys alive now (by token). Not in the database: a key that exists for the second
    // the warm-up takes needs no row, no hash and no revocation that a crash could leave undone.
    const internal = new Map<string, VerifiedApiKey>();
    app.decorate('internalKey', (name: string, role: Role): InternalKey => {
      const token = `internal_${randomBytes(32).toString('base64url')}`;
      const id = `internal:${name}`;
      internal.set(token, { id, name, role, root_key_id: id });
      return { token, revoke: () => void internal.delete(token) };
    });
    app.decorate('internalKeysAlive', () => internal.size);
    app.decorateRequest('apiKey', null);
    // The options objects themselves are kept: hooks of inner scopes (public docs, static UI) set
    // `auth: false` on them after this hook has seen them.
    const routes: RouteOptions[] = [];
    app.addHook('onRoute', (route) => void routes.push(route));
    app.decorate('routeAuth', () =>
      routes.flatMap((r) =>
        (Array.isArray(r.method) ? r.method : [r.method]).map((method) => ({ method, url: r.url, auth: routeNeedsAuth(r.config) })),
      ),
    );
    app.addHook('onRequest', async (request) => {
      // Unmatched URLs (404/405 answers) carry no route config: nothing there to protect.
      if (request.is404 || !routeNeedsAuth(request.routeOptions.config)) return;
      const token = tokenOf(request);
      // A read asks for its caches' stamp now too: on PostgreSQL both stamps then come in one query.
      if (request.method === 'GET' || request.method === 'HEAD') void stampSetOf(request);
      const stamp = await requestKeyStamp(request);
      // An internal key only through app.inject: a network client never passes with one, leaked or not.
      const own = internal.size > 0 && !(request.raw instanceof IncomingMessage) ? internal.get(token) : undefined;
      const key = own ?? (await verify(token, stamp));
      if (!key) throw unauthorized('Invalid token.');
      request.apiKey = key;
    });
  },
  { name: 'shelf-audit-auth', dependencies: ['shelf-audit-request-stamp'] },
);
