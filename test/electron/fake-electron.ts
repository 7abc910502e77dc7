// A stand-in for the 'electron' module under Node (vi.mock('electron', ...)): just enough of app,
// BrowserWindow, session, ipcMain, Menu, dialog, shell, contextBridge and ipcRenderer for the main
// process's logic to run, with every call recorded.
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

export class FakeWebContents extends EventEmitter {
  setWindowOpenHandler = vi.fn();
  reload = vi.fn();
}

export class FakeBrowserWindow extends EventEmitter {
  static instances: FakeBrowserWindow[] = [];
  webContents = new FakeWebContents();
  loadURL = vi.fn(async (_url: string) => {});
  show = vi.fn();
  focus = vi.fn();
  restore = vi.fn();
  minimized = false;
  isMinimized = () => this.minimized;
  constructor(readonly options: Record<string, unknown>) {
    super();
    FakeBrowserWindow.instances.push(this);
  }
}

class FakeApp extends EventEmitter {
  userData = '/tmp/shelf-audit-fake-user-data';
  isPackaged = false;
  gotLock = true;
  quitting = false;
  getPath = vi.fn((_name: string) => this.userData);
  getVersion = vi.fn(() => '0.1.0');
  enableSandbox = vi.fn();
  requestSingleInstanceLock = vi.fn(() => this.gotLock);
  whenReady = vi.fn(async () => {});
  exit = vi.fn();
  /** Like Electron: before-quit may be prevented; otherwise the app goes on to quit. */
  quit = vi.fn(() => {
    let prevented = false;
    this.emit('before-quit', { preventDefault: () => (prevented = true) });
    if (!prevented) this.quitting = true;
  });
}

function fakeSession() {
  return {
    webRequest: { onHeadersReceived: vi.fn() },
    setPermissionRequestHandler: vi.fn(),
    setPermissionCheckHandler: vi.fn(),
    setDevicePermissionHandler: vi.fn(),
  };
}

function fakeIpcMain() {
  const emitter = new EventEmitter();
  const handlers = new Map<string, (...args: unknown[]) => unknown>();
  return Object.assign(emitter, {
    handlers,
    handle: vi.fn((channel: string, fn: (...args: unknown[]) => unknown) => {
      handlers.set(channel, fn);
    }),
    removeHandler: vi.fn((channel: string) => handlers.delete(channel)),
  });
}

function build() {
  return {
    app: new FakeApp(),
    BrowserWindow: FakeBrowserWindow,
    session: { defaultSession: fakeSession() },
    ipcMain: fakeIpcMain(),
    Menu: { buildFromTemplate: vi.fn((t: unknown) => ({ template: t })), setApplicationMenu: vi.fn() },
    dialog: {
      showOpenDialog: vi.fn(async () => ({ canceled: true, filePaths: [] as string[] })),
      showMessageBox: vi.fn(async () => ({ response: 0 })),
      showMessageBoxSync: vi.fn((..._args: unknown[]) => 0),
      showErrorBox: vi.fn(),
    },
    shell: { openExternal: vi.fn(async () => {}), openPath: vi.fn(async () => '') },
    contextBridge: { exposeInMainWorld: vi.fn() },
    ipcRenderer: { sendSync: vi.fn(), invoke: vi.fn(async () => undefined) },
  };
}

export type FakeElectron = ReturnType<typeof build>;

/** The module object vi.mock returns; reset() swaps in fresh fakes between tests. */
export const electron = build();

export function resetElectron(): FakeElectron {
  Object.assign(electron, build());
  FakeBrowserWindow.instances = [];
  return electron;
}
