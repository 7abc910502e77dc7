// Whether `npm start` can open the desktop app here. It must not require('electron') to find out: in
// plain Node that module tries to download the binary when it is missing.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export type ElectronRuntime = { available: true; binary: string } | { available: false; reason: string };

export interface RuntimeContext {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** The electron package's folder, or undefined when it is not installed. */
  electronPackageDir: string | undefined;
}

function installedElectronDir(): string | undefined {
  try {
    return path.dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return undefined;
  }
}

export function findElectronRuntime(ctx: Partial<RuntimeContext> = {}): ElectronRuntime {
  const env = ctx.env ?? process.env;
  const platform = ctx.platform ?? process.platform;
  const electronPackageDir = 'electronPackageDir' in ctx ? ctx.electronPackageDir : installedElectronDir();
  if (env.SHELF_AUDIT_HEADLESS === '1') return { available: false, reason: 'SHELF_AUDIT_HEADLESS=1' };
  // Windows and macOS always have a desktop; elsewhere a window needs an X11 or Wayland display.
  if (platform !== 'win32' && platform !== 'darwin' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return { available: false, reason: 'no display' };
  }
  if (!electronPackageDir) return { available: false, reason: 'the electron package is not installed' };
  // The electron package records the binary's path inside its dist/ folder in path.txt once downloaded.
  const pathFile = path.join(electronPackageDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  const distDir = env.ELECTRON_OVERRIDE_DIST_PATH || path.join(electronPackageDir, 'dist');
  const binary = relative ? path.join(distDir, relative) : '';
  if (!binary || !existsSync(binary)) return { available: false, reason: 'no Electron binary' };
  return { available: true, binary };
}
