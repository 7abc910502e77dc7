import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', async () => (await import('./fake-electron.js')).electron);

import { SECURE_WEB_PREFERENCES } from '../../main/electron/security.js';
import { OPENING_PAGE_URL } from '../../main/electron/opening-page.js';
import { createMainWindow, secureWindowOptions, showApp } from '../../main/electron/window.js';
import { electron, FakeBrowserWindow, resetElectron } from './fake-electron.js';

beforeEach(() => {
  resetElectron();
});

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|js|mjs|cjs)$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

describe('the one secure window factory', () => {
  it('is the only place that creates windows or embedded views', () => {
    const offenders: string[] = [];
    let inFactory = 0;
    for (const file of [...sources('main'), ...sources('preload')]) {
      const text = readFileSync(file, 'utf8');
      const hits = text.match(/new\s+(BrowserWindow|BrowserView|WebContentsView)\s*\(/g) ?? [];
      if (path.normalize(file) === path.normalize('main/electron/window.ts')) inFactory = hits.length;
      else if (hits.length > 0) offenders.push(file);
      // Nor may any source switch a security setting back on, wherever it sits.
      if (/\b(nodeIntegration|webviewTag|allowRunningInsecureContent)\s*:\s*true|\b(contextIsolation|sandbox|webSecurity)\s*:\s*false/.test(text)) {
        offenders.push(`${file} (loosens a web preference)`);
      }
    }
    expect(offenders).toEqual([]);
    expect(inFactory).toBe(1);
  });

  it('gives every window the secure preferences and the bridge preload, hidden until ready', () => {
    const options = secureWindowOptions('/app/dist/preload/index.js');
    expect(options.webPreferences).toStrictEqual({ ...SECURE_WEB_PREFERENCES, preload: '/app/dist/preload/index.js' });
    expect(options.show).toBe(false);
  });

  it('opens the window on the opening page, shows it when ready, then loads the app URL in it', () => {
    const win = createMainWindow({ preloadPath: '/p.js' }) as unknown as FakeBrowserWindow;
    expect(FakeBrowserWindow.instances).toEqual([win]);
    expect(win.options.webPreferences).toStrictEqual({ ...SECURE_WEB_PREFERENCES, preload: '/p.js' });
    expect(win.loadURL).toHaveBeenCalledWith(OPENING_PAGE_URL);
    expect(win.show).not.toHaveBeenCalled();
    win.emit('ready-to-show');
    expect(win.show).toHaveBeenCalledOnce();
    showApp(win as never, 'http://127.0.0.1:8765/');
    expect(win.loadURL).toHaveBeenLastCalledWith('http://127.0.0.1:8765/');
    expect(FakeBrowserWindow.instances).toHaveLength(1);
  });

  it('asks before a page with unsaved work is closed: Leave lets it go, Stay keeps it', () => {
    const win = createMainWindow({ preloadPath: '/p.js' }) as unknown as FakeBrowserWindow;
    const dialog = electron.dialog.showMessageBoxSync;
    for (const [answer, leaves] of [[0, true], [1, false]] as const) {
      dialog.mockReturnValueOnce(answer);
      const event = { preventDefault: vi.fn() };
      win.webContents.emit('will-prevent-unload', event);
      expect(event.preventDefault).toHaveBeenCalledTimes(leaves ? 1 : 0);
    }
    expect(dialog).toHaveBeenCalledTimes(2);
    expect(dialog.mock.calls[0][0]).toBe(win);
  });
});
