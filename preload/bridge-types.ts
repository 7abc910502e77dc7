// The bridge the preload puts on `window.shelfAudit`. The renderer imports these types only (the
// preload itself is compiled separately, to CommonJS).

/** A photo picked in the system file dialog, read by the main process. */
export interface PickedPhoto {
  name: string;
  /** MIME type, e.g. image/jpeg. */
  type: string;
  bytes: Uint8Array;
}

export interface ShelfAuditBridge {
  /** The embedded server's base URL, e.g. http://127.0.0.1:8765 (the page's own origin). */
  readonly apiBaseUrl: string;
  /** A token for the local API, valid while this app runs. */
  readonly token: string;
  readonly appVersion: string;
  /** Opens the system file dialog for shelf photos; resolves to [] when cancelled. */
  openPhotos(options?: { multiple?: boolean }): Promise<PickedPhoto[]>;
  /** Shows the app's data folder in the system file manager. */
  revealDataFolder(): Promise<void>;
}

declare global {
  interface Window {
    /** Present only in the desktop app; a browser on the headless server has no bridge. */
    shelfAudit?: ShelfAuditBridge;
  }
}
