import { describe, expect, it } from 'vitest';
import { TOKEN_STORAGE_KEY } from '../api/credentials';
import { createSessionStore } from './session';

describe('session store', () => {
  it('follows the server: unreachable, rejecting the key, answering', () => {
    const store = createSessionStore({ baseUrl: '', token: 'k', source: 'fragment' });
    expect(store.getState().connection).toBe('unknown');
    store.getState().noteResponse(false, 0);
    expect(store.getState().connection).toBe('offline');
    store.getState().noteResponse(true, 401);
    expect(store.getState().connection).toBe('unauthorized');
    store.getState().noteResponse(true, 404);
    expect(store.getState().connection).toBe('online');
    expect(store.getState().lastContact).not.toBeNull();
  });

  it('adopts a typed key for the session with a new client, and forgets it', () => {
    const saved = new Map<string, string>();
    const storage = { setItem: (k: string, v: string) => void saved.set(k, v), removeItem: (k: string) => void saved.delete(k) };
    const store = createSessionStore({ baseUrl: 'http://127.0.0.1:1', token: null, source: 'none' });
    const before = store.getState().api;
    store.getState().noteResponse(true, 401);
    store.getState().useKey('typed', storage);
    expect(store.getState().credentials).toEqual({ baseUrl: 'http://127.0.0.1:1', token: 'typed', source: 'session' });
    expect(store.getState().api).not.toBe(before);
    expect(store.getState().connection).toBe('unknown');
    expect(saved.get(TOKEN_STORAGE_KEY)).toBe('typed');
    store.getState().forgetKey(storage);
    expect(store.getState().credentials.token).toBeNull();
    expect(saved.has(TOKEN_STORAGE_KEY)).toBe(false);
  });
});
