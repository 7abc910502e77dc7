// The one place that creates a BrowserWindow (test/electron/window.test.ts scans the sources to keep it
// so): every window gets SECURE_WEB_PREFERENCES, the bridge's preload and nothing else.
import type { BrowserWindowConstructorOptions } from 'electron';
import { BrowserWindow, dialog } from 'electron';
import { PRODUCT_NAME } from '../host/data-directory.js';
import { OPENING_PAGE_URL } from './opening-page.js';
import { SECURE_WEB_PREFERENCES } from './security.js';

export function secureWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    title: PRODUCT_NAME,
    width: 1280,
    height: 860,
    minWidth: 800,
    minHeight: 600,
    // Shown on ready-to-show, so the user never sees a blank white frame.
    show: false,
    webPreferences: { ...SECURE_WEB_PREFERENCES, preload: preloadPath },
  };
}

/**
 * Opens the app's window at once, on the opening page: the server process starts meanwhile, and
 * `showApp` then loads its UI in the same window.
 */
export function createMainWindow(options: { preloadPath: string }): BrowserWindow {
  const win = new BrowserWindow(secureWindowOptions(options.preloadPath));
  win.once('ready-to-show', () => win.show());
  // A screen with unsaved work (the review's corrections) refuses beforeunload; Electron would then
  // silently keep the window open, so ask here as a browser does. preventDefault lets it go.
  win.webContents.on('will-prevent-unload', (event) => {
    const choice = dialog.showMessageBoxSync(win, {
      type: 'question',
      buttons: ['Leave', 'Stay'],
      defaultId: 1,
      cancelId: 1,
      title: PRODUCT_NAME,
      message: 'You have unsaved changes. Leave without saving them?',
    });
    if (choice === 0) event.preventDefault();
  });
  void win.loadURL(OPENING_PAGE_URL);
  return win;
}

/** Replaces the opening page with the embedded server's UI. */
export function showApp(win: BrowserWindow, appUrl: string): void {
  void win.loadURL(appUrl);
}
