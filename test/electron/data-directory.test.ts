import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appDataDir, defaultDataDir, userDataDir } from '../../main/host/data-directory.js';

describe('default data directory (Electron userData for "Shelf Audit")', () => {
  it('is %APPDATA%\\Shelf Audit on Windows', () => {
    const ctx = { platform: 'win32' as const, env: { APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' }, homedir: 'C:\\Users\\ann' };
    expect(userDataDir(ctx)).toBe('C:\\Users\\ann\\AppData\\Roaming\\Shelf Audit');
  });

  it('falls back to the roaming folder under the profile when APPDATA is unset', () => {
    expect(appDataDir({ platform: 'win32', env: {}, homedir: 'C:\\Users\\ann' })).toBe('C:\\Users\\ann\\AppData\\Roaming');
  });

  it('is ~/Library/Application Support/Shelf Audit on macOS, whatever XDG says', () => {
    const ctx = { platform: 'darwin' as const, env: { XDG_CONFIG_HOME: '/x' }, homedir: '/Users/ann' };
    expect(userDataDir(ctx)).toBe('/Users/ann/Library/Application Support/Shelf Audit');
  });

  it('is $XDG_CONFIG_HOME/Shelf Audit on Linux, else ~/.config/Shelf Audit', () => {
    expect(userDataDir({ platform: 'linux', env: { XDG_CONFIG_HOME: '/cfg' }, homedir: '/home/ann' })).toBe('/cfg/Shelf Audit');
    expect(userDataDir({ platform: 'linux', env: {}, homedir: '/home/ann' })).toBe('/home/ann/.config/Shelf Audit');
    // A relative XDG value is ignored, as the XDG spec asks.
    expect(userDataDir({ platform: 'linux', env: { XDG_CONFIG_HOME: 'rel' }, homedir: '/home/ann' })).toBe('/home/ann/.config/Shelf Audit');
  });

  it('honours SHELF_AUDIT_DATA_DIR, resolved to an absolute path', () => {
    const ctx = { platform: 'linux' as const, env: { SHELF_AUDIT_DATA_DIR: 'some/dir' }, homedir: '/home/ann' };
    expect(defaultDataDir(ctx)).toBe(path.resolve('some/dir'));
    expect(defaultDataDir({ ...ctx, env: { SHELF_AUDIT_DATA_DIR: '  ' } })).toBe('/home/ann/.config/Shelf Audit');
  });

});
