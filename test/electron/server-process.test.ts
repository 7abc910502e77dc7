// The desktop app's server in its own process: the main process forks it (a utilityProcess
// in Electron; here a scripted stand-in, and once the real entry under Node's fork), waits for it to
// listen, asks it for the model version, stops it on quit, and restarts it after a crash on the same
// port, handing the reloaded window the new session key; after repeated crashes it gives up.
import { fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', async () => (await import('./fake-electron.js')).electron);
const log = vi.hoisted(() => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() }));
vi.mock('../../main/electron/logging.js', () => ({ setupLogging: vi.fn(() => log) }));

import { runDesktopApp } from '../../main/electron/lifecycle.js';
import { startServerProcess, type ServerChild } from '../../main/electron/server-host.js';
import type { FromServer, ToServer } from '../../main/host/server-process.js';
import { FakeBrowserWindow, resetElectron, type FakeElectron } from './fake-electron.js';

/** A stand-in server process: answers start with ready (or dies, when told to), stop with stopped + exit. */
class ScriptedChild extends EventEmitter implements ServerChild {
  static forks: ScriptedChild[] = [];
  received: ToServer[] = [];
  alive = true;
  constructor(readonly n: number, private readonly behaviour: 'ok' | 'die-on-start') {
    super();
    ScriptedChild.forks.push(this);
  }
  postMessage(m: ToServer) {
    this.received.push(m);
    queueMicrotask(() => {
      if (m.type === 'start') {
        if (this.behaviour === 'die-on-start') return this.crash(1);
        this.reply({ type: 'ready', url: `http://127.0.0.1:${m.port || 50000}`, port: m.port || 50000, fellBack: false, token: `token-${this.n}`, pid: 1000 + this.n });
      } else if (m.type === 'model-version') this.reply({ type: 'model-version', id: m.id, version: 'detector-7' });
      else if (m.type === 'stop') {
        this.reply({ type: 'stopped' });
        this.crash(0);
      }
    });
  }
  reply(m: FromServer) {
    this.emit('message', m);
  }
  crash(code: number) {
    if (!this.alive) return;
    this.alive = false;
    this.emit('exit', code);
  }
  kill() {
    this.crash(9);
    return true;
  }
}

const quiet = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
let dataDir: string;
beforeEach(() => {
  ScriptedChild.forks = [];
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-proc-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const flush = () => new Promise((r) => setTimeout(r, 10));

describe('the server process, seen from the main process', () => {
  it('starts it, asks it for the model version, and stops it on close', async () => {
    let n = 0;
    const server = await startServerProcess({ fork: () => new ScriptedChild(++n, 'ok'), dataDir, port: 47010, log: quiet });
    expect(server).toMatchObject({ url: 'http://127.0.0.1:47010', port: 47010, token: 'token-1' });
    expect(ScriptedChild.forks[0].received[0]).toEqual({ type: 'start', dataDir, port: 47010, owner: 'desktop app' });
    expect(await server.modelVersion()).toBe('detector-7');
    await server.close();
    expect(ScriptedChild.forks[0].received.at(-1)).toEqual({ type: 'stop' });
    expect(ScriptedChild.forks[0].alive).toBe(false);
    expect(ScriptedChild.forks).toHaveLength(1); // a stop is no crash: nothing restarts
  });

  it('restarts a crashed server on the same port with a new key, and gives up after repeated crashes', async () => {
    let n = 0;
    const server = await startServerProcess({ fork: () => new ScriptedChild(++n, n > 3 ? 'die-on-start' : 'ok'), dataDir, port: 47011, log: quiet, maxRestarts: 5 });
    const restarted = vi.fn();
    const gaveUp = vi.fn();
    server.onRestart(restarted);
    server.onGiveUp(gaveUp);
    ScriptedChild.forks[0].crash(134);
    await flush();
    expect(restarted).toHaveBeenCalledWith({ url: 'http://127.0.0.1:47011', port: 47011, token: 'token-2' });
    expect(ScriptedChild.forks[1].received[0]).toMatchObject({ type: 'start', port: 47011 });
    expect(server.token).toBe('token-2');
    expect(await server.modelVersion()).toBe('detector-7'); // asks the new process
    ScriptedChild.forks[1].crash(134);
    await flush();
    expect(restarted).toHaveBeenCalledTimes(2);
    // The fourth process dies while starting: no server to hand over, so it gives up.
    ScriptedChild.forks[2].crash(134);
    await flush();
    expect(gaveUp).toHaveBeenCalledWith(expect.objectContaining({ message: expect.stringMatching(/ended \(code 1\) before it listened/) }));
  });

  it('stops restarting after maxRestarts crashes within the window', async () => {
    let n = 0;
    const server = await startServerProcess({ fork: () => new ScriptedChild(++n, 'ok'), dataDir, port: 47012, log: quiet, maxRestarts: 1 });
    const gaveUp = vi.fn();
    server.onGiveUp(gaveUp);
    ScriptedChild.forks[0].crash(1);
    await flush();
    ScriptedChild.forks[1].crash(1);
    await flush();
    expect(ScriptedChild.forks).toHaveLength(2);
    expect(gaveUp).toHaveBeenCalledWith(expect.objectContaining({ message: expect.stringMatching(/keeps ending/) }));
  });

  it('fails the start with the server\'s own message', async () => {
    const child = () => {
      const c = new ScriptedChild(1, 'ok');
      c.postMessage = (m) => queueMicrotask(() => m.type === 'start' && c.reply({ type: 'failed', message: 'database is locked' }));
      return c;
    };
    await expect(startServerProcess({ fork: child, dataDir, port: 47013, log: quiet })).rejects.toThrow('database is locked');
  });
});

describe('the desktop lifecycle with a server process', () => {
  let fake: FakeElectron;
  beforeEach(() => {
    fake = resetElectron();
    process.env.SHELF_AUDIT_DATA_DIR = dataDir;
    process.env.SHELF_AUDIT_PORT = '47014';
  });

  it('hands the reloaded window the restarted server\'s key, and quits when the server gives up', async () => {
    let n = 0;
    const started = await runDesktopApp({
      startServer: (o) => startServerProcess({ fork: () => new ScriptedChild(++n, n > 2 ? 'die-on-start' : 'ok'), dataDir: o.dataDir, port: o.port, log: quiet }),
      issueSessionKey: async (server) => ({ token: server.token, revoke: async () => {} }),
      modelVersion: (server) => server.modelVersion(),
      preloadPath: '/app/dist/preload/index.js',
    });
    expect(started?.appUrl).toBe('http://127.0.0.1:47014/');
    const session = () => {
      const reply: { returnValue?: { token: string }; senderFrame: unknown } = { senderFrame: { url: 'http://127.0.0.1:47014/', parent: null } };
      fake.ipcMain.emit('shelf-audit:session', reply);
      return reply.returnValue?.token;
    };
    expect(session()).toBe('token-1');
    ScriptedChild.forks[0].crash(134);
    await flush();
    expect(session()).toBe('token-2');
    expect(FakeBrowserWindow.instances[0].webContents.reload).toHaveBeenCalledTimes(1);
    ScriptedChild.forks[1].crash(134);
    await flush();
    expect(fake.dialog.showErrorBox).toHaveBeenCalledWith('Shelf Audit stopped working', expect.any(String));
    expect(fake.app.quit).toHaveBeenCalled();
  });
});

describe('the real server process under Node', () => {
  it('listens with a session key, serves the API, and stops cleanly when asked', async () => {
    const child = fork('dist/main/cli/server-process.js', [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const adapter: ServerChild = {
      postMessage: (m) => void child.send(m),
      on: (event: 'message' | 'exit', listener: (arg: any) => void) => void child.on(event, event === 'exit' ? (code: number | null) => listener(code ?? 1) : listener),
      kill: () => child.kill(),
    };
    const server = await startServerProcess({ fork: () => adapter, dataDir, port: 0, log: quiet });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${server.url}/api/app/v1/info/`, { headers: { authorization: `Token ${server.token}` } });
      expect(res.status).toBe(200);
      expect((await res.json()).data_dir).toBe(dataDir);
      expect(await server.modelVersion()).not.toBe('unknown');
    } finally {
      await server.close();
    }
    expect(child.exitCode).toBe(0);
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  }, 60_000);
});
