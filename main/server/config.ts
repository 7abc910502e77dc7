// Server settings and their defaults, in one place.
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string;
  /** Directory of the built web UI, served at `/`; null when there is none. */
  webRoot: string | null;
  logger: boolean;
}

/** The repository (or packaged app) root: dist/main/server/config.js and main/server/config.ts both sit 3 levels down. */
const appRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', ...(import.meta.url.includes('/dist/') ? ['..'] : []));

export function defaultWebRoot(): string | null {
  const dir = path.join(appRoot, 'dist', 'renderer');
  return existsSync(path.join(dir, 'index.html')) ? dir : null;
}

/** SHELF_AUDIT_DATA_DIR, else a per-user directory. */
export function defaultDataDir(): string {
  const fromEnv = process.env.SHELF_AUDIT_DATA_DIR;
  if (fromEnv) return path.resolve(fromEnv);
  const home = os.homedir();
  if (process.platform === 'win32') return path.join(process.env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'shelf-audit');
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'shelf-audit');
  return path.join(process.env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'shelf-audit');
}

export const DEFAULT_HOST = '127.0.0.1';
