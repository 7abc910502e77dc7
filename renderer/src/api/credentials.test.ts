import { describe, expect, it } from 'vitest';
import { resolveCredentials, takeTokenFromHash, TOKEN_STORAGE_KEY, type CredentialEnvironment } from './credentials';

function env(over: Partial<CredentialEnvironment> & { stored?: string } = {}) {
  const store = new Map<string, string>(over.stored ? [[TOKEN_STORAGE_KEY, over.stored]] : []);
  const replaced: string[] = [];
  const e: CredentialEnvironment = {
    bridge: over.bridge,
    hash: over.hash ?? '',
    storage: {
      getItem: (k) => store.get(k) ?? null,
      setItem: (k, v) => void store.set(k, v),
      removeItem: (k) => void store.delete(k),
    },
    replaceHash: (h) => void replaced.push(h),
  };
  return { e, store, replaced };
}

describe('takeTokenFromHash', () => {
  it('takes the token and keeps the rest of the fragment', () => {
    expect(takeTokenFromHash('#token=abc')).toEqual({ token: 'abc', rest: '' });
    expect(takeTokenFromHash('#token=a%2Bb&x=1')).toEqual({ token: 'a+b', rest: '#x=1' });
  });

  it('leaves screen routes alone', () => {
    expect(takeTokenFromHash('#/visits/123')).toEqual({ token: null, rest: '#/visits/123' });
    expect(takeTokenFromHash('')).toEqual({ token: null, rest: '' });
  });
});

describe('resolveCredentials', () => {
  it('prefers the preload bridge, with its base URL', () => {
    const { e } = env({ bridge: { apiBaseUrl: 'http://127.0.0.1:8765/', token: 'bridge-key' }, hash: '#token=other' });
    expect(resolveCredentials(e)).toEqual({ baseUrl: 'http://127.0.0.1:8765', token: 'bridge-key', source: 'bridge' });
  });

  it('keeps a #token fragment for the session and strips it from the address bar', () => {
    const { e, store, replaced } = env({ hash: '#token=frag-key' });
    expect(resolveCredentials(e)).toEqual({ baseUrl: '', token: 'frag-key', source: 'fragment' });
    expect(store.get(TOKEN_STORAGE_KEY)).toBe('frag-key');
    expect(replaced).toEqual(['']);
  });

  it('uses the stored key after a reload, and none when there is none', () => {
    expect(resolveCredentials(env({ stored: 'kept' }).e)).toMatchObject({ token: 'kept', source: 'session' });
    expect(resolveCredentials(env().e)).toMatchObject({ token: null, source: 'none' });
  });
});
