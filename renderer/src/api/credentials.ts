// Where the API token and base URL come from: the Electron preload bridge, else a `#token=KEY`
// fragment that `npm start` prints (kept for the tab's session and removed from the address bar so it
// is not bookmarked or shared), else a key the user types in.

import type { ShelfAuditBridge } from '../../../preload/bridge-types';

export type { ShelfAuditBridge };

export const TOKEN_STORAGE_KEY = 'shelf-audit.token';

export interface Credentials {
  baseUrl: string;
  token: string | null;
  source: 'bridge' | 'fragment' | 'session' | 'none';
}

export interface CredentialEnvironment {
  /** Only the bridge's session values matter here; tests pass just those. */
  bridge: Partial<Pick<ShelfAuditBridge, 'apiBaseUrl' | 'token' | 'appVersion'>> | undefined;
  hash: string;
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
  /** Replaces the hash in the address bar without adding a history entry. */
  replaceHash(hash: string): void;
}

/** Pulls `token=KEY` out of a location hash, returning the key and the hash without it. */
export function takeTokenFromHash(hash: string): { token: string | null; rest: string } {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  const params = new URLSearchParams(body.includes('=') && !body.startsWith('/') ? body : '');
  const token = params.get('token');
  if (!token) return { token: null, rest: hash };
  params.delete('token');
  const rest = params.toString();
  return { token, rest: rest ? `#${rest}` : '' };
}

export function resolveCredentials(env: CredentialEnvironment): Credentials {
  const bridgeBase = env.bridge?.apiBaseUrl?.replace(/\/+$/, '') ?? '';
  if (env.bridge?.token) return { baseUrl: bridgeBase, token: env.bridge.token, source: 'bridge' };
  const { token, rest } = takeTokenFromHash(env.hash);
  if (token) {
    env.storage.setItem(TOKEN_STORAGE_KEY, token);
    env.replaceHash(rest);
    return { baseUrl: bridgeBase, token, source: 'fragment' };
  }
  const stored = env.storage.getItem(TOKEN_STORAGE_KEY);
  if (stored) return { baseUrl: bridgeBase, token: stored, source: 'session' };
  return { baseUrl: bridgeBase, token: null, source: 'none' };
}

export function browserCredentialEnvironment(): CredentialEnvironment {
  return {
    bridge: window.shelfAudit,
    hash: window.location.hash,
    storage: window.sessionStorage,
    replaceHash(hash) {
      const url = `${window.location.pathname}${window.location.search}${hash}`;
      window.history.replaceState(null, '', url);
    },
  };
}
