// The preload: runs sandboxed, so it may require nothing but 'electron' (no local modules: bridge-types
// is imported for types only). It exposes a small bridge (contextBridge hands the page a copy) and never
// ipcRenderer itself, so the page can reach only these channels, which main/electron/ipc.ts allowlists under the same names.
import { contextBridge, ipcRenderer } from 'electron';
import type { PickedPhoto, ShelfAuditBridge } from './bridge-types.js';

const CHANNELS = {
  session: 'shelf-audit:session',
  openPhotos: 'shelf-audit:open-photos',
  revealDataFolder: 'shelf-audit:reveal-data-folder',
} as const;

// Synchronous so the bridge's values exist before the page's first script runs; main answers null when
// the page is not the app's own.
const session = ipcRenderer.sendSync(CHANNELS.session) as {
  apiBaseUrl: string;
  token: string;
  appVersion: string;
} | null;

if (session) {
  const bridge: ShelfAuditBridge = {
    apiBaseUrl: session.apiBaseUrl,
    token: session.token,
    appVersion: session.appVersion,
    openPhotos: (options) =>
      ipcRenderer.invoke(
        CHANNELS.openPhotos,
        ...(options?.multiple === undefined ? [] : [{ multiple: options.multiple }]),
      ) as Promise<
        PickedPhoto[]
      >,
    revealDataFolder: () => ipcRenderer.invoke(CHANNELS.revealDataFolder) as Promise<void>,
  };
  contextBridge.exposeInMainWorld('shelfAudit', bridge);
}
