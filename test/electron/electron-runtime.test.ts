import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findElectronRuntime } from '../../main/host/electron-runtime.js';

let pkg: string;
beforeEach(() => {
  pkg = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-electron-'));
});
afterEach(() => rmSync(pkg, { recursive: true, force: true }));

function installBinary(): string {
  writeFileSync(path.join(pkg, 'path.txt'), 'electron');
  mkdirSync(path.join(pkg, 'dist'));
  writeFileSync(path.join(pkg, 'dist', 'electron'), '');
  return path.join(pkg, 'dist', 'electron');
}

describe('can Electron start here?', () => {
  it('yes, with a downloaded binary and a display', () => {
    const binary = installBinary();
    expect(findElectronRuntime({ env: { DISPLAY: ':0' }, platform: 'linux', electronPackageDir: pkg })).toEqual({ available: true, binary });
    expect(findElectronRuntime({ env: { WAYLAND_DISPLAY: 'wayland-0' }, platform: 'linux', electronPackageDir: pkg }).available).toBe(true);
    // Windows and macOS need no display variable.
    expect(findElectronRuntime({ env: {}, platform: 'darwin', electronPackageDir: pkg }).available).toBe(true);
  });

  it('no, without a display on Linux', () => {
    installBinary();
    expect(findElectronRuntime({ env: {}, platform: 'linux', electronPackageDir: pkg })).toEqual({ available: false, reason: 'no display' });
  });

  it('no, when the package is installed but its binary was never downloaded', () => {
    expect(findElectronRuntime({ env: { DISPLAY: ':0' }, platform: 'linux', electronPackageDir: pkg })).toEqual({
      available: false,
      reason: 'no Electron binary',
    });
    writeFileSync(path.join(pkg, 'path.txt'), 'electron');
    expect(findElectronRuntime({ env: { DISPLAY: ':0' }, platform: 'linux', electronPackageDir: pkg }).available).toBe(false);
  });

  it('no, when the electron package is missing or headless mode is asked for', () => {
    installBinary();
    expect(findElectronRuntime({ env: { DISPLAY: ':0' }, platform: 'linux', electronPackageDir: undefined }).available).toBe(false);
    expect(findElectronRuntime({ env: { DISPLAY: ':0', SHELF_AUDIT_HEADLESS: '1' }, platform: 'linux', electronPackageDir: pkg })).toEqual({
      available: false,
      reason: 'SHELF_AUDIT_HEADLESS=1',
    });
  });

  it('finds this checkout’s electron package without trying to download it', () => {
    // Here the binary cannot be downloaded; the check must answer, not attempt a download (which would
    // print "Downloading Electron binary..." and throw).
    const result = findElectronRuntime({ env: { DISPLAY: ':0' }, platform: 'linux' });
    if (!result.available) expect(result.reason).toBe('no Electron binary');
    else expect(path.basename(path.dirname(result.binary))).toBe('dist');
  });
});
