// Who the renderer talks to and whether it can: the API client built from the credentials, and the
// connection state the status bar shows (the app works offline; the server may be unreachable).
import { create } from 'zustand';
import { ApiClient } from '../api/client';
import { TOKEN_STORAGE_KEY, type Credentials } from '../api/credentials';

export type Connection = 'unknown' | 'online' | 'offline' | 'unauthorized';

export interface SessionState {
  credentials: Credentials;
  api: ApiClient;
  connection: Connection;
  browserOnline: boolean;
  lastContact: number | null;
  /** Adopts a key typed by the user (kept for this tab's session only). */
  useKey(token: string, storage?: Pick<Storage, 'setItem'>): void;
  forgetKey(storage?: Pick<Storage, 'removeItem'>): void;
  setBrowserOnline(online: boolean): void;
  noteResponse(reached: boolean, status: number): void;
}

function clientFor(credentials: Credentials, get: () => SessionState): ApiClient {
  return new ApiClient(credentials.baseUrl, credentials.token, {
    onResponse: (reached, status) => get().noteResponse(reached, status),
  });
}

export function createSessionStore(initial: Credentials) {
  return create<SessionState>()((set, get) => ({
    credentials: initial,
    api: clientFor(initial, () => get()),
    connection: 'unknown',
    browserOnline: true,
    lastContact: null,
    useKey(token, storage) {
      storage?.setItem(TOKEN_STORAGE_KEY, token);
      const credentials: Credentials = { ...get().credentials, token, source: 'session' };
      set({ credentials, api: clientFor(credentials, get), connection: 'unknown' });
    },
    forgetKey(storage) {
      storage?.removeItem(TOKEN_STORAGE_KEY);
      const credentials: Credentials = { ...get().credentials, token: null, source: 'none' };
      set({ credentials, api: clientFor(credentials, get), connection: 'unknown' });
    },
    setBrowserOnline(online) {
      set({ browserOnline: online });
    },
    noteResponse(reached, status) {
      if (!reached) set({ connection: 'offline' });
      else if (status === 401) set({ connection: 'unauthorized', lastContact: Date.now() });
      else set({ connection: 'online', lastContact: Date.now() });
    },
  }));
}

export type SessionStore = ReturnType<typeof createSessionStore>;

let store: SessionStore | null = null;

/** The app's session store, created once at start-up from the resolved credentials. */
export function initSession(credentials: Credentials): SessionStore {
  store = createSessionStore(credentials);
  return store;
}

export function useSession<T>(selector: (state: SessionState) => T): T {
  if (!store) throw new Error('session not initialised');
  return store(selector);
}

export function sessionStore(): SessionStore {
  if (!store) throw new Error('session not initialised');
  return store;
}
