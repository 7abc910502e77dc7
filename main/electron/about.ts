// The About box: which app, model and Electron this is, the first thing support asks.
import type { BrowserWindow } from 'electron';
import { dialog } from 'electron';
import { PRODUCT_NAME } from '../host/data-directory.js';

export interface AboutVersions {
  app: string;
  /** The shipped detector's version, or "unknown" when the server could not tell. */
  model: string;
  electron: string;
  chrome: string;
  node: string;
}

export function aboutDetail(v: AboutVersions): string {
  return [
    `Version ${v.app}`,
    `Detection model ${v.model}`,
    `Electron ${v.electron}`,
    `Chromium ${v.chrome}`,
    `Node.js ${v.node}`,
  ].join('\n');
}

export async function showAboutBox(win: BrowserWindow | undefined, versions: AboutVersions): Promise<void> {
  const options: Electron.MessageBoxOptions = {
    type: 'info',
    title: `About ${PRODUCT_NAME}`,
    message: PRODUCT_NAME,
    detail: aboutDetail(versions),
    buttons: ['OK'],
  };
  if (win) await dialog.showMessageBox(win, options);
  else await dialog.showMessageBox(options);
}

/** Asks the embedded server's info endpoint (in process, no socket) which detection model it runs. */
export async function modelVersionFromServer(
  app: { inject(options: { method: 'GET'; url: string; headers: Record<string, string> }): PromiseLike<{ statusCode: number; body: string }> },
  token: string,
): Promise<string> {
  try {
    const res = await app.inject({ method: 'GET', url: '/api/app/v1/info/', headers: { authorization: `Token ${token}` } });
    if (res.statusCode !== 200) return 'unknown';
    const version = (JSON.parse(res.body) as { model_version?: unknown }).model_version;
    return typeof version === 'string' && version ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}
