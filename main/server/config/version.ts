// The app's version, read once from package.json (the repository root in development and in the build).
import { readFileSync } from 'node:fs';

function findVersion(): string {
  for (const rel of ['../../../package.json', '../../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'shelf-audit' && pkg.version) return pkg.version;
    } catch {
      // not at this level: try the next
    }
  }
  return '0.0.0';
}

export const APP_VERSION = findVersion();
