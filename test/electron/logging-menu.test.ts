import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';

// electron-log's main module requires the real electron package; its API is stood in for here.
const log = vi.hoisted(() => ({
  transports: { file: { resolvePathFn: undefined as unknown, maxSize: 0 } },
  initialize: vi.fn(),
  errorHandler: { startCatching: vi.fn() },
  eventLogger: { startLogging: vi.fn() },
}));
vi.mock('electron-log/main', () => ({ default: log }));
vi.mock('electron', async () => (await import('./fake-electron.js')).electron);

import { aboutDetail } from '../../main/electron/about.js';
import { LOG_MAX_BYTES, setupLogging } from '../../main/electron/logging.js';
import { buildMenuTemplate } from '../../main/electron/menu.js';

describe('logging', () => {
  it('writes main and renderer logs to rotating files in the user-data folder, and catches uncaught errors', () => {
    setupLogging('/home/ann/.config/Shelf Audit');
    const resolve = log.transports.file.resolvePathFn as (vars: unknown, message?: { variables?: { processType?: string } }) => string;
    expect(resolve({}, { variables: { processType: 'browser' } })).toBe(path.join('/home/ann/.config/Shelf Audit', 'logs', 'main.log'));
    expect(resolve({}, { variables: { processType: 'renderer' } })).toBe(path.join('/home/ann/.config/Shelf Audit', 'logs', 'renderer.log'));
    expect(resolve({})).toBe(path.join('/home/ann/.config/Shelf Audit', 'logs', 'main.log'));
    expect(log.transports.file.maxSize).toBe(LOG_MAX_BYTES);
    // The page's console is captured from the main process: no logging preload in the renderer.
    expect(log.initialize).toHaveBeenCalledWith({ preload: false, spyRendererConsole: true });
    expect(log.errorHandler.startCatching).toHaveBeenCalledWith({ showDialog: false });
    expect(log.eventLogger.startLogging).toHaveBeenCalled();
  });
});

describe('menu and About box', () => {
  const actions = { about: vi.fn(), revealDataFolder: vi.fn(), revealLogsFolder: vi.fn() };
  const labels = (t: Electron.MenuItemConstructorOptions[]): string[] =>
    t.flatMap((i) => [i.label ?? i.role ?? i.type ?? '', ...(Array.isArray(i.submenu) ? labels(i.submenu) : [])]);

  it('offers developer tools only in unpackaged builds', () => {
    expect(labels(buildMenuTemplate({ platform: 'linux', isPackaged: false, actions }))).toContain('toggleDevTools');
    expect(labels(buildMenuTemplate({ platform: 'linux', isPackaged: true, actions }))).not.toContain('toggleDevTools');
  });

  it('has the data and logs folders and About, in the app menu on macOS and under Help elsewhere', () => {
    for (const platform of ['linux', 'win32', 'darwin'] as const) {
      const template = buildMenuTemplate({ platform, isPackaged: true, actions });
      const all = labels(template);
      expect(all.filter((l) => l === 'About Shelf Audit')).toHaveLength(1);
      expect(all).toEqual(expect.arrayContaining(['Show Data Folder', 'Show Logs Folder', 'quit', 'editMenu']));
      expect(template[0].label).toBe(platform === 'darwin' ? 'Shelf Audit' : 'File');
    }
    const items = buildMenuTemplate({ platform: 'win32', isPackaged: true, actions }).flatMap((m) => (Array.isArray(m.submenu) ? m.submenu : []));
    (items.find((i) => i.label === 'Show Data Folder')!.click as () => void)();
    (items.find((i) => i.label === 'Show Logs Folder')!.click as () => void)();
    expect(actions.revealDataFolder).toHaveBeenCalledOnce();
    expect(actions.revealLogsFolder).toHaveBeenCalledOnce();
  });

  it('About lists the app, model and Electron versions', () => {
    expect(aboutDetail({ app: '0.1.0', model: 'shelf-det-2026.11', electron: '45.4.1', chrome: '140.0', node: '22.20.0' })).toBe(
      'Version 0.1.0\nDetection model shelf-det-2026.11\nElectron 45.4.1\nChromium 140.0\nNode.js 22.20.0',
    );
  });
});
