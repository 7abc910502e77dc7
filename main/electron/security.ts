// Every security setting of the desktop window, in one place so that test/electron/security.test.ts
// fails when any is loosened. The window shows the embedded server's UI from http://127.0.0.1:PORT, so
// "the app" is exactly that origin; everything else is either refused or handed to the system browser.
// The rules are in place before the origin is known (the window opens on the opening page while the
// server starts): until then nothing is the app, so nothing may navigate, ask a permission or call IPC.
import type { Session, WebContents, WebPreferences } from 'electron';
import { shell } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../server/http/content-security-policy.js';

/** The renderer gets no Node, runs sandboxed and isolated from the preload, and cannot embed webviews. */
export const SECURE_WEB_PREFERENCES = Object.freeze({
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webviewTag: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  experimentalFeatures: false,
  navigateOnDragDrop: false,
  safeDialogs: true,
  spellcheck: false,
} satisfies WebPreferences);

export function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The app's origin once the server listens; undefined before. */
export type AppOrigin = () => string | undefined;

export function isAppUrl(url: string, appOrigin: string | undefined): boolean {
  return appOrigin !== undefined && originOf(url) === appOrigin;
}

/** Only web links go to the system browser: file:, smb:, custom schemes etc. could run local programs. */
export function isSafeExternalUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/** The app asks for one permission: the camera, to take shelf photos. Microphone and all else are denied. */
export function allowPermissionRequest(
  permission: string,
  details: { requestingUrl?: string; mediaTypes?: string[] },
  appOrigin: string | undefined,
): boolean {
  if (permission !== 'media' || !isAppUrl(details.requestingUrl ?? '', appOrigin)) return false;
  const types = details.mediaTypes ?? [];
  return types.length > 0 && types.every((t) => t === 'video');
}

export function allowPermissionCheck(
  permission: string,
  requestingOrigin: string,
  details: { mediaType?: string },
  appOrigin: string | undefined,
): boolean {
  return permission === 'media' && isAppUrl(requestingOrigin, appOrigin) && details.mediaType === 'video';
}

/** Response headers with the app's CSP in place of whatever the response carried. */
export function withContentSecurityPolicy(
  headers: Record<string, string[]> | undefined,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') out[name] = value;
  }
  out['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
  return out;
}

function openInBrowser(url: string): void {
  if (isSafeExternalUrl(url)) void shell.openExternal(url);
}

/** Session-wide rules: the CSP on the app's responses, permission requests and device access. */
export function hardenSession(session: Session, appOrigin: AppOrigin): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    // Only the app's own pages: Chromium's internal ones (devtools) bring their own policy.
    if (!isAppUrl(details.url, appOrigin())) return callback({});
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders) });
  });
  session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(allowPermissionRequest(permission, details as { requestingUrl?: string; mediaTypes?: string[] }, appOrigin()));
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin, details) =>
    allowPermissionCheck(permission, requestingOrigin, details, appOrigin()),
  );
  session.setDevicePermissionHandler(() => false);
}

/**
 * Per-page rules, applied to every web contents the app creates: navigation stays on the app's origin,
 * links elsewhere open in the system browser, no new windows and no webviews.
 */
export function hardenWebContents(contents: WebContents, appOrigin: AppOrigin): void {
  contents.on('will-navigate', (event, url) => {
    if (isAppUrl(url, appOrigin())) return;
    event.preventDefault();
    openInBrowser(url);
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url, appOrigin())) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (!isAppUrl(url, appOrigin())) openInBrowser(url);
    return { action: 'deny' };
  });
}
