import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', async () => (await import('./fake-electron.js')).electron);

import { createIpcHandlers, MAX_PHOTOS, readPhotos } from '../../main/electron/ipc-handlers.js';
import { ALLOWED_CHANNELS, dispatch, IPC_CHANNELS, type IpcHandlers, IpcRejectedError, registerIpcHandlers } from '../../main/electron/ipc.js';
import { type FakeElectron, resetElectron } from './fake-electron.js';

const APP = 'http://127.0.0.1:8765';
const app = () => APP;
const top = (url = `${APP}/`) => ({ senderFrame: { url, parent: null } });
const SESSION = { apiBaseUrl: APP, token: 'tok', appVersion: '0.1.0' };

function handlers(): IpcHandlers & { [K in keyof IpcHandlers]: ReturnType<typeof vi.fn> } {
  return {
    session: vi.fn(() => SESSION),
    openPhotos: vi.fn(async () => []),
    revealDataFolder: vi.fn(async () => {}),
  } as never;
}

let fake: FakeElectron;
let tmp: string;
beforeEach(() => {
  fake = resetElectron();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-ipc-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe('IPC allowlist', () => {
  it('rejects channels outside the allowlist', () => {
    const h = handlers();
    for (const channel of ['shelf-audit:exec', 'fs:read', '__ELECTRON_LOG__', '']) {
      expect(() => dispatch(h, app, channel, top(), [])).toThrow(IpcRejectedError);
    }
  });

  it('rejects calls from other origins, subframes or frameless senders', () => {
    const h = handlers();
    expect(() => dispatch(h, app, IPC_CHANNELS.session, top('https://evil.example/'), [])).toThrow(/outside the app/);
    expect(() => dispatch(h, app, IPC_CHANNELS.session, top('http://127.0.0.1:9999/'), [])).toThrow(/outside the app/);
    expect(() => dispatch(h, app, IPC_CHANNELS.session, { senderFrame: { url: `${APP}/`, parent: {} } }, [])).toThrow(/outside the app/);
    expect(() => dispatch(h, app, IPC_CHANNELS.session, { senderFrame: null }, [])).toThrow(/outside the app/);
    expect(h.session).not.toHaveBeenCalled();
  });

  it('validates arguments against each channel’s schema before any handler runs', async () => {
    const h = handlers();
    const bad: [string, unknown[]][] = [
      [IPC_CHANNELS.session, ['extra']],
      [IPC_CHANNELS.revealDataFolder, ['/etc']],
      [IPC_CHANNELS.openPhotos, [{ multiple: 'yes' }]],
      [IPC_CHANNELS.openPhotos, [{ multiple: true, defaultPath: '/etc' }]],
      [IPC_CHANNELS.openPhotos, [{}, {}]],
      [IPC_CHANNELS.openPhotos, ['photos']],
    ];
    for (const [channel, args] of bad) {
      expect(() => dispatch(h, app, channel, top(), args), `${channel} ${JSON.stringify(args)}`).toThrow(/Invalid arguments/);
    }
    expect(h.openPhotos).not.toHaveBeenCalled();
    expect(h.revealDataFolder).not.toHaveBeenCalled();

    expect(dispatch(h, app, IPC_CHANNELS.session, top(), [])).toEqual(SESSION);
    await dispatch(h, app, IPC_CHANNELS.openPhotos, top(), []);
    await dispatch(h, app, IPC_CHANNELS.openPhotos, top(), [{ multiple: true }]);
    expect(h.openPhotos.mock.calls).toEqual([[{}], [{ multiple: true }]]);
    await dispatch(h, app, IPC_CHANNELS.revealDataFolder, top(), []);
    expect(h.revealDataFolder).toHaveBeenCalledOnce();
  });

  it('registers exactly the allowlisted channels, answering rejected sync calls with null', async () => {
    const h = handlers();
    const rejected = vi.fn();
    const unregister = registerIpcHandlers(fake.ipcMain as never, h, app, rejected);
    expect([...fake.ipcMain.handlers.keys(), ...fake.ipcMain.eventNames()].sort()).toEqual([...ALLOWED_CHANNELS].sort());

    const ok: { returnValue?: unknown; senderFrame: unknown } = { ...top() };
    fake.ipcMain.emit(IPC_CHANNELS.session, ok);
    expect(ok.returnValue).toEqual(SESSION);
    const evil: { returnValue?: unknown; senderFrame: unknown } = { ...top('https://evil.example/') };
    fake.ipcMain.emit(IPC_CHANNELS.session, evil);
    expect(evil.returnValue).toBeNull();

    const reveal = fake.ipcMain.handlers.get(IPC_CHANNELS.revealDataFolder)!;
    await expect(reveal(top(), 'extra')).rejects.toThrow(IpcRejectedError);
    await reveal(top());
    expect(h.revealDataFolder).toHaveBeenCalledOnce();
    expect(rejected).toHaveBeenCalledTimes(2);

    unregister();
    expect(fake.ipcMain.handlers.size).toBe(0);
    expect(fake.ipcMain.eventNames()).toEqual([]);
  });
});

describe('IPC handlers', () => {
  it('reads picked photos into bytes with their type, and refuses other files', async () => {
    const jpg = path.join(tmp, 'shelf.JPG');
    writeFileSync(jpg, Buffer.from([0xff, 0xd8, 0xff]));
    const photos = await readPhotos([jpg]);
    expect(photos).toEqual([{ name: 'shelf.JPG', type: 'image/jpeg', bytes: new Uint8Array([0xff, 0xd8, 0xff]) }]);
    writeFileSync(path.join(tmp, 'run.exe'), 'MZ');
    await expect(readPhotos([path.join(tmp, 'run.exe')])).rejects.toThrow(/Not a supported photo/);
    await expect(readPhotos(Array.from({ length: MAX_PHOTOS + 1 }, () => jpg))).rejects.toThrow(/at most/);
  });

  it('opens the photo dialog on the window and returns nothing when cancelled', async () => {
    const png = path.join(tmp, 'a.png');
    writeFileSync(png, 'png');
    const win = {};
    const h = createIpcHandlers({ session: SESSION, dataDir: tmp, window: () => win as never });
    expect(await h.openPhotos({})).toEqual([]);
    fake.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: [png] });
    const picked = await h.openPhotos({ multiple: true });
    expect(picked.map((p) => p.name)).toEqual(['a.png']);
    const [parent, options] = fake.dialog.showOpenDialog.mock.calls[1] as unknown as [unknown, Electron.OpenDialogOptions];
    expect(parent).toBe(win);
    expect(options.properties).toEqual(['openFile', 'multiSelections']);
  });

  it('reveals the data folder, and reports a failure', async () => {
    const h = createIpcHandlers({ session: SESSION, dataDir: tmp, window: () => undefined });
    await h.revealDataFolder();
    expect(fake.shell.openPath).toHaveBeenCalledWith(tmp);
    fake.shell.openPath.mockResolvedValueOnce('Failed to open path');
    await expect(h.revealDataFolder()).rejects.toThrow('Failed to open path');
  });
});

describe('the preload bridge', () => {
  async function loadPreload(session: unknown) {
    vi.resetModules();
    fake.ipcRenderer.sendSync.mockReturnValue(session);
    await import('../../preload/index.js');
  }

  it('requires nothing but electron at run time (a sandboxed preload cannot)', () => {
    const source = readFileSync('preload/index.ts', 'utf8');
    const runtimeImports = [...source.matchAll(/^import\s+(?!type\b)[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]);
    expect(runtimeImports).toEqual(['electron']);
    expect(source).not.toMatch(/\brequire\s*\(/);
  });

  it('exposes only the session values and the allowlisted calls, on allowlisted channels', async () => {
    await loadPreload(SESSION);
    expect(fake.ipcRenderer.sendSync).toHaveBeenCalledWith(IPC_CHANNELS.session);
    const [name, bridge] = fake.contextBridge.exposeInMainWorld.mock.calls[0] as [string, Record<string, unknown>];
    expect(name).toBe('shelfAudit');
    expect(Object.keys(bridge).sort()).toEqual(['apiBaseUrl', 'appVersion', 'openPhotos', 'revealDataFolder', 'token']);
    expect(bridge).toMatchObject(SESSION);

    await (bridge.openPhotos as (o?: object) => Promise<unknown>)();
    await (bridge.openPhotos as (o?: object) => Promise<unknown>)({ multiple: true });
    await (bridge.revealDataFolder as () => Promise<void>)();
    expect(fake.ipcRenderer.invoke.mock.calls).toEqual([
      [IPC_CHANNELS.openPhotos],
      [IPC_CHANNELS.openPhotos, { multiple: true }],
      [IPC_CHANNELS.revealDataFolder],
    ]);
    const used = new Set([IPC_CHANNELS.session, ...fake.ipcRenderer.invoke.mock.calls.map((c) => (c as unknown[])[0])]);
    expect([...used].sort()).toEqual([...ALLOWED_CHANNELS].sort());
  });

  it('exposes nothing when the main process refuses the page', async () => {
    await loadPreload(null);
    expect(fake.contextBridge.exposeInMainWorld).not.toHaveBeenCalled();
  });
});
