// Where the app keeps its data on this machine. The desktop app and the headless `npm start` must agree
// on one folder, and `npm start` may not load Electron to ask it, so this mirrors what Electron's
// app.getPath('userData') gives for productName "Shelf Audit" (appData + product name).
import os from 'node:os';
import path from 'node:path';

export const PRODUCT_NAME = 'Shelf Audit';
export const DATA_DIR_ENV = 'SHELF_AUDIT_DATA_DIR';

export interface PlatformContext {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  homedir: string;
}

function currentContext(): PlatformContext {
  return { platform: process.platform, env: process.env, homedir: os.homedir() };
}

/** Electron's app.getPath('appData') for the platform. */
export function appDataDir(ctx: PlatformContext = currentContext()): string {
  const { platform, env, homedir } = ctx;
  if (platform === 'win32') {
    // Electron asks Windows for FOLDERID_RoamingAppData, which is what %APPDATA% holds.
    return env.APPDATA || path.win32.join(homedir, 'AppData', 'Roaming');
  }
  if (platform === 'darwin') return path.posix.join(homedir, 'Library', 'Application Support');
  // Linux and the BSDs: the XDG config home, as Chromium resolves it (an absolute value only).
  const xdg = env.XDG_CONFIG_HOME;
  return xdg && path.posix.isAbsolute(xdg) ? xdg : path.posix.join(homedir, '.config');
}

/** Electron's app.getPath('userData') for productName "Shelf Audit". */
export function userDataDir(ctx: PlatformContext = currentContext()): string {
  const join = ctx.platform === 'win32' ? path.win32.join : path.posix.join;
  return join(appDataDir(ctx), PRODUCT_NAME);
}

/** The data directory: SHELF_AUDIT_DATA_DIR when set, else the user-data folder. */
export function defaultDataDir(ctx: PlatformContext = currentContext()): string {
  const configured = ctx.env[DATA_DIR_ENV]?.trim();
  if (configured) return path.resolve(configured);
  return userDataDir(ctx);
}
