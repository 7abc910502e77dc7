// Server settings and their defaults, in one place.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultDataDir as desktopDataDir } from '../host/data-directory.js';

export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string;
  /** Directory of the built web UI, served at `/`; null when there is none. */
  webRoot: string | null;
  logger: boolean;
  /** 'central': the instance laptops sync into (no sync engine of its own). Default 'laptop'. */
  role?: 'laptop' | 'central';
}

/** The repository (or packaged app) root: main/server/config.ts sits 2 levels below it, dist/main/server/config.js 3. */
const appRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', ...(import.meta.url.includes('/dist/') ? ['..'] : []));

export function defaultWebRoot(): string | null {
  const dir = path.join(appRoot, 'dist', 'renderer');
  return existsSync(path.join(dir, 'index.html')) ? dir : null;
}

/**
 * SHELF_AUDIT_DATA_DIR, else the folder the desktop app uses (Electron's userData for "Shelf Audit"),
 * so `npm run serve` / `npm run cli` without --data-dir work on the same data as `npm start`.
 */
export function defaultDataDir(): string {
  return desktopDataDir();
}

export const DEFAULT_HOST = '127.0.0.1';
