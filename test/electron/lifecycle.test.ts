import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', async () => (await import('./fake-electron.js')).electron);
// electron-log's main module requires the real electron package (CommonJS, outside vi.mock's reach).
const log = vi.hoisted(() => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() }));
vi.mock('../../main/electron/logging.js', () => ({ setupLogging: vi.fn(() => log) }));

import { type HostedServer, runDesktopApp, type DesktopDeps } from '../../main/electron/lifecycle.js';
import { LAYOUT_FILE } from '../../main/host/data-layout.js';
import { OPENING_PAGE_URL } from '../../main/electron/opening-page.js';
import { setupLogging } from '../../main/electron/logging.js';
import { type FakeElectron, FakeBrowserWindow, FakeWebContents, resetElectron } from './fake-electron.js';

let fake: FakeElectron;
let dataDir: string;
const order: string[] = [];
const env = { ...process.env };

function deps(overrides: Partial<DesktopDeps> = {}) {
  const server = {
    url: 'http://127.0.0.1:47001',
    port: 47001,
    close: vi.fn(async () => {
      order.push('server.close');
    }),
  };
  const revoke = vi.fn(async () => {
    order.push('key.revoke');
  });
  const d: DesktopDeps = {
    startServer: vi.fn(async (o) => {
      order.push(`startServer:${o.port}:${existsSync(path.join(dataDir, LAYOUT_FILE)) ? 'migrated' : 'unmigrated'}`);
      return server;
    }),
    issueSessionKey: vi.fn(async () => {
      order.push('issueSessionKey');
      return { token: 'session-token', revoke };
    }),
    modelVersion: vi.fn(async () => 'detector-1.0'),
    preloadPath: '/app/dist/preload/index.js',
    ...overrides,
  };
  return { d, server, revoke };
}

beforeEach(() => {
  fake = resetElectron();
  order.length = 0;
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-life-'));
  process.env.SHELF_AUDIT_DATA_DIR = dataDir;
  process.env.SHELF_AUDIT_PORT = '47001';
  fake.app.requestSingleInstanceLock.mockImplementation(() => {
    order.push('lock');
    return fake.app.gotLock;
  });
  fake.app.whenReady.mockImplementation(async () => {
    order.push('ready');
  });
  fake.session.defaultSession.webRequest.onHeadersReceived.mockImplementation(() => order.push('session hardened'));
  fake.Menu.setApplicationMenu.mockImplementation(() => order.push('menu'));
});
afterEach(() => {
  process.env = { ...env };
  rmSync(dataDir, { recursive: true, force: true });
});

describe('desktop lifecycle', () => {
  it('starts in order: logging, lock, ready, security, IPC, menu, the window on its opening page, then migrated data folder, server, key, and the app in the window', async () => {
    const { d } = deps();
    fake.ipcMain.handle.mockImplementation((channel: string, fn: (...a: unknown[]) => unknown) => {
      order.push('ipc');
      fake.ipcMain.handlers.set(channel, fn);
    });
    const start = d.startServer;
    d.startServer = vi.fn(async (o) => {
      order.push(`window:${FakeBrowserWindow.instances.length}`);
      return start(o);
    });
    const started = await runDesktopApp(d);

    expect(setupLogging).toHaveBeenCalledWith(fake.app.userData);
    expect(fake.app.enableSandbox).toHaveBeenCalled();
    const win = FakeBrowserWindow.instances[0];
    expect(FakeBrowserWindow.instances).toHaveLength(1);
    expect(win.loadURL.mock.calls.map((c) => c[0])).toEqual([OPENING_PAGE_URL, 'http://127.0.0.1:47001/']);
    expect(order.filter((s, i) => order.indexOf(s) === i)).toEqual([
      'lock',
      'ready',
      'session hardened',
      'ipc',
      'menu',
      'window:1',
      'startServer:47001:migrated',
      'issueSessionKey',
    ]);
    expect(d.startServer).toHaveBeenCalledWith({ host: '127.0.0.1', port: 47001, dataDir });
    expect(started).toMatchObject({ dataDir, appUrl: 'http://127.0.0.1:47001/' });

    // The page gets the server's origin and the session token through the allowlisted sync channel.
    const reply: { returnValue?: unknown; senderFrame: unknown } = { senderFrame: { url: 'http://127.0.0.1:47001/', parent: null } };
    fake.ipcMain.emit('shelf-audit:session', reply);
    expect(reply.returnValue).toEqual({ apiBaseUrl: 'http://127.0.0.1:47001', token: 'session-token', appVersion: '0.1.0' });

    // Every web contents created from now on gets the page rules.
    const contents = new FakeWebContents();
    fake.app.emit('web-contents-created', {}, contents);
    expect(contents.setWindowOpenHandler).toHaveBeenCalled();
  });

  it('while the server starts, the window shows the opening page and nothing is the app: no navigation, no bridge, no permission', async () => {
    const { d } = deps();
    let listen: () => void = () => {};
    const start = d.startServer;
    d.startServer = vi.fn(async (o) => {
      await new Promise<void>((resolve) => (listen = resolve));
      return start(o);
    });
    const running = runDesktopApp(d);
    await vi.waitFor(() => expect(d.startServer).toHaveBeenCalled());
    const win = FakeBrowserWindow.instances[0];
    expect(win.loadURL.mock.calls.map((c) => c[0])).toEqual([OPENING_PAGE_URL]);
    win.emit('ready-to-show');
    expect(win.show).toHaveBeenCalledOnce();

    const contents = new FakeWebContents();
    fake.app.emit('web-contents-created', {}, contents);
    const navigate = (url: string) => {
      const e = { preventDefault: vi.fn() };
      contents.emit('will-navigate', e, url);
      return e.preventDefault.mock.calls.length > 0;
    };
    // Even the origin the server is about to take is not the app's yet.
    expect(navigate('http://127.0.0.1:47001/')).toBe(true);
    const early: { returnValue?: unknown; senderFrame: unknown } = { senderFrame: { url: OPENING_PAGE_URL, parent: null } };
    fake.ipcMain.emit('shelf-audit:session', early);
    expect(early.returnValue).toBeNull();
    const check = fake.session.defaultSession.setPermissionCheckHandler.mock.calls[0][0] as (...a: unknown[]) => boolean;
    expect(check(null, 'media', 'http://127.0.0.1:47001', { mediaType: 'video' })).toBe(false);

    listen();
    await running;
    expect(win.loadURL).toHaveBeenLastCalledWith('http://127.0.0.1:47001/');
    expect(navigate('http://127.0.0.1:47001/visits')).toBe(false);
    expect(check(null, 'media', 'http://127.0.0.1:47001', { mediaType: 'video' })).toBe(true);
    const late: { returnValue?: unknown; senderFrame: unknown } = { senderFrame: { url: 'http://127.0.0.1:47001/', parent: null } };
    fake.ipcMain.emit('shelf-audit:session', late);
    expect(late.returnValue).toMatchObject({ token: 'session-token' });
  });

  it('quits at once, starting nothing, when another instance holds the lock', async () => {
    fake.app.gotLock = false;
    const { d } = deps();
    expect(await runDesktopApp(d)).toBeUndefined();
    expect(fake.app.quit).toHaveBeenCalled();
    expect(d.startServer).not.toHaveBeenCalled();
    expect(FakeBrowserWindow.instances).toHaveLength(0);
  });

  it('focuses the existing window on a second launch', async () => {
    await runDesktopApp(deps().d);
    const win = FakeBrowserWindow.instances[0];
    win.minimized = true;
    fake.app.emit('second-instance', {}, ['shelf-audit'], '/');
    expect(win.restore).toHaveBeenCalled();
    expect(win.focus).toHaveBeenCalled();
    expect(FakeBrowserWindow.instances).toHaveLength(1);
  });

  it('on quit revokes the key and closes the server before letting the app exit', async () => {
    const { d, server } = deps();
    await runDesktopApp(d);
    order.length = 0;
    fake.app.emit('window-all-closed');
    // The first quit is held back while the server closes; the app quits again once it has.
    expect(fake.app.quitting).toBe(false);
    await vi.waitFor(() => expect(fake.app.quitting).toBe(true));
    expect(order).toEqual(['key.revoke', 'server.close']);
    expect(server.close).toHaveBeenCalledOnce();
  });

  it('a quit during start-up waits for the server, then closes it without loading the app', async () => {
    const { d, server } = deps();
    const start = d.startServer;
    d.startServer = vi.fn(async (o) => {
      fake.app.quit(); // e.g. Cmd+Q while the database opens
      return start(o);
    });
    expect(await runDesktopApp(d)).toBeUndefined();
    await vi.waitFor(() => expect(fake.app.quitting).toBe(true));
    expect(server.close).toHaveBeenCalledOnce();
    expect(FakeBrowserWindow.instances[0].loadURL.mock.calls.map((c) => c[0])).toEqual([OPENING_PAGE_URL]);
    expect(order.slice(-2)).toEqual(['key.revoke', 'server.close']);
  });

  it('still closes the server when revoking the key fails', async () => {
    const { d, server, revoke } = deps();
    revoke.mockRejectedValueOnce(new Error('db gone'));
    await runDesktopApp(d);
    fake.app.quit();
    await vi.waitFor(() => expect(fake.app.quitting).toBe(true));
    expect(server.close).toHaveBeenCalledOnce();
    expect(log.warn).toHaveBeenCalled();
  });

  it('falls back to a free port when the configured one is taken', async () => {
    const { d, server } = deps({});
    let calls = 0;
    d.startServer = vi.fn(async (_o: { port: number }): Promise<HostedServer> => {
      if (calls++ === 0) throw Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
      return { ...server, port: 51234, url: 'http://127.0.0.1:51234' };
    });
    const started = await runDesktopApp(d);
    expect((d.startServer as ReturnType<typeof vi.fn>).mock.calls.map((c) => c[0].port)).toEqual([47001, 0]);
    expect(started?.appUrl).toBe('http://127.0.0.1:51234/');
  });

  it('shows the error and exits, with nothing left open, when the data folder is too new', async () => {
    writeFileSync(path.join(dataDir, LAYOUT_FILE), JSON.stringify({ version: 99 }));
    const { d } = deps();
    expect(await runDesktopApp(d)).toBeUndefined();
    expect(fake.dialog.showErrorBox).toHaveBeenCalledWith('Shelf Audit could not start', expect.stringMatching(/newer/));
    expect(fake.app.exit).toHaveBeenCalledWith(1);
    expect(d.startServer).not.toHaveBeenCalled();
    expect(FakeBrowserWindow.instances[0].loadURL.mock.calls.map((c) => c[0])).toEqual([OPENING_PAGE_URL]);
  });

  it('closes a started server when a later start-up step fails', async () => {
    const { d, server } = deps();
    d.issueSessionKey = vi.fn(async () => {
      throw new Error('no keys table');
    });
    await runDesktopApp(d);
    expect(server.close).toHaveBeenCalledOnce();
    expect(fake.app.exit).toHaveBeenCalledWith(1);
    expect(FakeBrowserWindow.instances[0].loadURL.mock.calls.map((c) => c[0])).toEqual([OPENING_PAGE_URL]);
  });

  it('shows app, model and Electron versions in the About box', async () => {
    const { d } = deps();
    await runDesktopApp(d);
    const template = fake.Menu.buildFromTemplate.mock.calls[0][0] as Electron.MenuItemConstructorOptions[];
    const items = template.flatMap((m) => (Array.isArray(m.submenu) ? m.submenu : []));
    const about = items.find((i) => i.label === 'About Shelf Audit')!;
    (about.click as () => void)();
    await vi.waitFor(() => expect(fake.dialog.showMessageBox).toHaveBeenCalled());
    const options = fake.dialog.showMessageBox.mock.calls[0].at(-1) as unknown as Electron.MessageBoxOptions;
    expect(options.detail).toContain('Version 0.1.0');
    expect(options.detail).toContain('Detection model detector-1.0');
    expect(options.detail).toMatch(/Electron \S+/);
  });
});
