// electron-builder.yml, loaded and schema-checked by electron-builder's own code (the installers
// themselves need Electron downloads, so they are built by `npm run dist` on a machine with Internet).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { DebugLogger } from 'builder-util';

type Config = Record<string, any>;
const load = (): Promise<Config> => getConfig(process.cwd(), 'electron-builder.yml', null);
const targets = (platform: Config) => (platform.target as (string | { target: string })[]).map((t) => (typeof t === 'string' ? t : t.target));

describe('electron-builder configuration', () => {
  it('passes electron-builder’s own schema validation (which does catch mistakes)', async () => {
    const config = await load();
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    await expect(validateConfiguration({ ...config, asarUnpak: [] } as Config, new DebugLogger(false))).rejects.toThrow(/asarUnpak/);
  });

  it('builds AppImage and deb, NSIS, and dmg', async () => {
    const config = await load();
    expect(targets(config.linux)).toEqual(['AppImage', 'deb']);
    expect(targets(config.win)).toEqual(['nsis']);
    expect(targets(config.mac)).toEqual(['dmg']);
  });

  it('packs the app into asar with the native modules and the model unpacked', async () => {
    const config = await load();
    expect(config.asar).toBe(true);
    for (const mod of ['better-sqlite3', 'sharp', 'onnxruntime-node']) {
      expect(config.asarUnpack).toContain(`node_modules/${mod}/**`);
    }
    expect(config.asarUnpack).toContain('models/**/*.onnx');
    const files: string[] = config.files.flatMap((f: string | { filter: string[] }) => (typeof f === 'string' ? [f] : f.filter));
    for (const want of ['package.json', 'dist/main/**/*', 'dist/preload/**/*', 'dist/renderer/**/*', 'models/**/*', '!models/training/**']) {
      expect(files).toContain(want);
    }
  });

  it('hardens the Electron binary with fuses, and keeps user data on uninstall', async () => {
    const config = await load();
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
    expect(config.nsis.deleteAppDataOnUninstall).toBe(false);
  });

  it('starts from the built Electron entry, and `npm run dist` rebuilds native modules for Electron first', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
    expect(pkg.main).toBe('dist/main/electron/main.js');
    expect(pkg.productName).toBe('Shelf Audit');
    expect(pkg.scripts.dist).toMatch(/npm run build && electron-builder install-app-deps && electron-builder --config electron-builder.yml/);
  });
});
