// The desktop app's life, in order: logging, the single-instance lock, the session and page rules, IPC,
// the menu and the window on its opening page (at once); then the data directory (migrated), the
// embedded server on 127.0.0.1 and its session key, and the app's UI loaded in the window. Quitting
// revokes the session key and closes the server (stops requests, lets jobs reach a safe point, closes
// the database) before the process exits.
import type { BrowserWindow } from 'electron';
import { app, dialog, ipcMain, Menu, session, shell } from 'electron';
import path from 'node:path';
import { defaultDataDir } from '../host/data-directory.js';
import { migrateDataDir } from '../host/data-layout.js';
import { configuredPort, listenOnPreferredPort } from '../host/port.js';
import { showAboutBox } from './about.js';
import { createIpcHandlers } from './ipc-handlers.js';
import { registerIpcHandlers } from './ipc.js';
import { setupLogging } from './logging.js';
import { buildMenuTemplate } from './menu.js';
import { hardenSession, hardenWebContents } from './security.js';
import { createMainWindow, showApp } from './window.js';

export interface HostedServer {
  url: string;
  port: number;
  close(): Promise<void>;
  /** A server in its own process (server-host.ts): restarted after a crash, with a new session key. */
  onRestart?(listener: (address: { url: string; token: string }) => void): void;
  /** ...or given up on after crashing again and again. */
  onGiveUp?(listener: (error: Error) => void): void;
}

export interface SessionKey {
  token: string;
  revoke(): Promise<void>;
}

export interface DesktopDeps<S extends HostedServer = HostedServer> {
  startServer(options: { host: string; port: number; dataDir: string }): Promise<S>;
  /** A key for the window's page to call the API with, valid until revoked on quit. */
  issueSessionKey(server: S): Promise<SessionKey>;
  /** The shipped detector's version for the About box (asked of the server with the session token). */
  modelVersion(server: S, token: string): Promise<string>;
  preloadPath: string;
}

export interface DesktopApp {
  dataDir: string;
  appUrl: string;
  window(): BrowserWindow | undefined;
}

/** Resolves once the window is open; undefined when another instance already runs (this one quits). */
export async function runDesktopApp<S extends HostedServer>(deps: DesktopDeps<S>): Promise<DesktopApp | undefined> {
  const userData = app.getPath('userData');
  const log = setupLogging(userData);
  app.enableSandbox();

  if (!app.requestSingleInstanceLock()) {
    log.info('Shelf Audit is already running; handing over to it');
    app.quit();
    return undefined;
  }

  let win: BrowserWindow | undefined;
  app.on('second-instance', () => {
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  });
  // No tray and no dock-only mode: closing the window ends the app, on every platform.
  app.on('window-all-closed', () => app.quit());

  let server: S | undefined;
  let key: SessionKey | undefined;
  let shutDown = false;
  let shuttingDown = false;
  // A quit asked for while the server is still starting waits for the start to finish, so that the
  // database it opens is closed again rather than left to the process's exit.
  let starting = true;
  let quitRequested = false;
  app.on('before-quit', (event) => {
    if (shutDown) return;
    if (starting) {
      event.preventDefault();
      quitRequested = true;
      return;
    }
    if (!server) return;
    event.preventDefault();
    if (shuttingDown) return;
    shuttingDown = true;
    const running = server;
    log.info('Quitting: closing the server');
    void (async () => {
      try {
        await key?.revoke();
      } catch (err) {
        log.warn('Could not revoke the session key', err);
      }
      try {
        await running.close();
      } catch (err) {
        log.error('Server did not close cleanly', err);
      }
      shutDown = true;
      app.quit();
    })();
  });

  await app.whenReady();
  // The window first, on the opening page, so it is there at once; the server process starts meanwhile.
  // Every rule is in place before the window exists and follows the origin once the server listens.
  let appOrigin: string | undefined;
  const origin = () => appOrigin;
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, origin));
  hardenSession(session.defaultSession, origin);
  const dataDir = defaultDataDir();
  // Read by the bridge on every page load: a restarted server's new key reaches the reloaded page.
  // Until the server listens no page is the app's, so the bridge gets nothing.
  const sessionInfo = { apiBaseUrl: '', token: '', appVersion: app.getVersion() };
  registerIpcHandlers(
    ipcMain,
    createIpcHandlers({
      session: sessionInfo,
      dataDir,
      window: () => win,
    }),
    origin,
    (err) => log.warn('IPC call rejected:', err),
  );
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      buildMenuTemplate({
        platform: process.platform,
        isPackaged: app.isPackaged,
        actions: {
          about: () => {
            const running = server;
            const sessionToken = key?.token;
            const model = running && sessionToken ? deps.modelVersion(running, sessionToken) : Promise.resolve('starting');
            void model.then((version) =>
              showAboutBox(win, {
                app: app.getVersion(),
                model: version,
                electron: process.versions.electron ?? 'unknown',
                chrome: process.versions.chrome ?? 'unknown',
                node: process.versions.node,
              }),
            );
          },
          revealDataFolder: () => void shell.openPath(dataDir),
          revealLogsFolder: () => void shell.openPath(path.join(userData, 'logs')),
        },
      }),
    ),
  );
  win = createMainWindow({ preloadPath: deps.preloadPath });
  win.on('closed', () => {
    win = undefined;
  });

  try {
    const layout = await migrateDataDir(dataDir);
    log.info(`Data folder ${dataDir} (layout ${layout.from} -> ${layout.to})`);

    const { result, fellBack } = await listenOnPreferredPort(configuredPort(), (port) =>
      deps.startServer({ host: '127.0.0.1', port, dataDir }),
    );
    server = result;
    if (fellBack) log.warn(`Port ${configuredPort()} is taken; the server listens on ${result.port} instead`);
    key = await deps.issueSessionKey(result);
    const appUrl = new URL('/', result.url).href;
    appOrigin = new URL(appUrl).origin;
    sessionInfo.apiBaseUrl = appOrigin;
    sessionInfo.token = key.token;
    log.info(`Server on ${appOrigin}`);

    result.onRestart?.((address) => {
      log.warn(`The server restarted after a crash, on ${new URL(address.url).origin}; reloading the window`);
      sessionInfo.token = address.token;
      win?.webContents.reload();
    });
    result.onGiveUp?.((error) => {
      log.error('The server keeps crashing', error);
      dialog.showErrorBox('Shelf Audit stopped working', `${error.message}. Your saved work is kept; start the app again.`);
      app.quit();
    });

    starting = false;
    if (quitRequested) {
      app.quit();
      return undefined;
    }
    if (win) showApp(win, appUrl);
    return { dataDir, appUrl, window: () => win };
  } catch (err) {
    log.error('Shelf Audit could not start', err);
    dialog.showErrorBox('Shelf Audit could not start', err instanceof Error ? err.message : String(err));
    // Whatever started must still be undone (the key, the database above all) before exiting.
    await key?.revoke().catch(() => {});
    await server?.close().catch(() => {});
    starting = false;
    shutDown = true;
    app.exit(1);
    return undefined;
  }
}
