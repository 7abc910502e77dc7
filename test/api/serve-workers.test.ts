// `serve --workers 2` as a laptop that syncs: only the first server process runs the sync loop (the
// central sees requests from that process alone), and a process that dies is replaced, the first one
// included, with the sync loop going on in its replacement. Real processes: a central (`--role
// central`, SQLite) behind a recording proxy that names, from /proc, the laptop process that opened
// each connection.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { ServeProcesses, listeningUrl } from '../serve-listening.js';
import { childrenOf, clientProcess, environOf, requestAnsweredBy } from './answering-process.js';

const KEY = 'serve-workers-key-0123456789abcdefghij';
const processes = new ServeProcesses(KEY, { SHELF_AUDIT_SYNC_INTERVAL_MS: '300', SHELF_AUDIT_SYNC_BACKOFF_MS: '100', SHELF_AUDIT_SYNC_MAX_BACKOFF_MS: '500' });
const serve = (args: string[]) => processes.start(args);

afterAll(() => processes.closeAll());

async function until<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('only the first process syncs; a process that dies is replaced, and the sync loop goes on in the replacement', async () => {
  const central = serve(['--role', 'central']);
  const centralUrl = await listeningUrl(central);
  const headers = { authorization: `Token ${KEY}`, 'content-type': 'application/json' };
  const device = (await (await fetch(`${centralUrl}/api/app/v1/devices/`, { method: 'POST', headers, body: JSON.stringify({ name: 'workers laptop', role: 'auditor' }) })).json()) as { key: string };

  // Every sync request, with the laptop process that sent it (looked up among the processes alive then).
  let laptopPids: number[] = [];
  let primary = 0;
  const seen: Array<{ at: number; pid: number | undefined; url: string }> = [];
  const proxy = http.createServer((req, res) => {
    seen.push({ at: Date.now(), pid: clientProcess(port, req.socket.remotePort!, primary ? childrenOf(primary) : []), url: req.url! });
    const upstream = http.request(new URL(req.url!, centralUrl), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => req.socket.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const port = (proxy.address() as AddressInfo).port;
  try {
    const laptop = serve(['--workers', '2', '--central', `http://127.0.0.1:${port}`, '--device-key', device.key]);
    primary = laptop.pid!;
    const url = await listeningUrl(laptop);
    laptopPids = childrenOf(laptop.pid!);
    expect(laptopPids).toHaveLength(2);
    const first = laptopPids.find((p) => environOf(p, 'SHELF_AUDIT_SERVE_WORKER') === '1')!;
    expect(first).toBeDefined();

    // A few rounds (every 300 ms), each from the first process only.
    await until('several sync rounds', () => (seen.filter((s) => s.url.startsWith('/api/app/v1/sync/pull/')).length >= 4 ? true : undefined));
    expect(new Set(seen.map((s) => s.pid))).toEqual(new Set([first]));

    // The first process dies: another takes its place (and its number), serves, and syncs.
    process.kill(first, 'SIGKILL');
    const replaced = await until('the dead process to be replaced', () => {
      const now = childrenOf(laptop.pid!);
      return now.length === 2 && !now.includes(first) ? now : undefined;
    });
    // Counted from here: the dead process's last requests may have been seen just before it died.
    const died = seen.length;
    const replacement = replaced.find((p) => !laptopPids.includes(p))!;
    // Read once the new process has its own environment (right after the fork it may still be the primary's).
    expect(await until('the replacement to start', () => environOf(replacement, 'SHELF_AUDIT_SERVE_WORKER'))).toBe('1');
    laptopPids = replaced;
    await until('sync rounds from the replacement', () => (seen.slice(died).filter((s) => s.pid === replacement).length >= 3 ? true : undefined));
    expect(new Set(seen.slice(died).map((s) => s.pid))).toEqual(new Set([replacement]));
    // Both processes answer requests again.
    // (A replacement answers once it listens: asked until both have, within the deadline.)
    const answeredByBoth = async (pids: number[]) => {
      const answeredBy = new Set<number>();
      await until('both processes to answer', async () => {
        answeredBy.add((await requestAnsweredBy(url, pids, 'GET', '/api/v1.5/brands/', { authorization: `Token ${KEY}` })).pid);
        return answeredBy.size === 2 ? true : undefined;
      });
      expect([...answeredBy].sort()).toEqual([...pids].sort());
    };
    await answeredByBoth(replaced);

    // The second process dies too: replaced, and it never syncs.
    const second = replaced.find((p) => p !== replacement)!;
    process.kill(second, 'SIGKILL');
    const again = await until('the second process to be replaced', () => {
      const now = childrenOf(laptop.pid!);
      return now.length === 2 && !now.includes(second) ? now : undefined;
    });
    const third = again.find((p) => p !== replacement)!;
    expect(await until('the third process to start', () => environOf(third, 'SHELF_AUDIT_SERVE_WORKER'))).toBe('2');
    laptopPids = again;
    const mark = seen.length;
    await until('more sync rounds', () => (seen.length >= mark + 3 ? true : undefined));
    expect(new Set(seen.slice(mark).map((s) => s.pid))).toEqual(new Set([replacement]));
    await answeredByBoth(again);

    let printed = '';
    laptop.stderr!.on('data', (c) => (printed += c));
    const exited = new Promise((r) => laptop.once('exit', r));
    laptop.kill('SIGTERM');
    expect(await exited, printed).toBe(0);
  } finally {
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
  }
}, 90_000);

it('stops with status 0 on SIGTERM while a replacement process is still starting', async () => {
  const laptop = serve(['--workers', '2']);
  await listeningUrl(laptop);
  const pids = childrenOf(laptop.pid!);
  expect(pids).toHaveLength(2);
  process.kill(pids[0], 'SIGKILL');
  // The replacement is forked at once; it takes a second or more to load, so it is still starting
  // (no signal handler of its own yet) when the primary stops it.
  await until('the replacement to be forked', () => (childrenOf(laptop.pid!).some((p) => !pids.includes(p)) ? true : undefined), 10_000);
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((r) => laptop.once('exit', (code, signal) => r([code, signal])));
  laptop.kill('SIGTERM');
  expect(await exited).toEqual([0, null]);
}, 60_000);
