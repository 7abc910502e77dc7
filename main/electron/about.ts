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

export { modelVersionFromServer } from '../host/hosted-server.js';
