import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { configuredPort, DEFAULT_PORT, listenOnPreferredPort } from '../../main/host/port.js';

function listen(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}
const portOf = (s: net.Server) => (s.address() as net.AddressInfo).port;

describe('port choice', () => {
  const open: net.Server[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  it('reads SHELF_AUDIT_PORT, defaulting to the fixed port', () => {
    expect(configuredPort({})).toBe(DEFAULT_PORT);
    expect(configuredPort({ SHELF_AUDIT_PORT: '9123' })).toBe(9123);
    expect(configuredPort({ SHELF_AUDIT_PORT: '0' })).toBe(0);
    expect(() => configuredPort({ SHELF_AUDIT_PORT: 'eighty' })).toThrow(/port number/);
    expect(() => configuredPort({ SHELF_AUDIT_PORT: '70000' })).toThrow(/port number/);
  });

  it('uses the configured port when it is free', async () => {
    const probe = await listen(0);
    const free = portOf(probe);
    await new Promise((r) => probe.close(r));
    const { result, fellBack } = await listenOnPreferredPort(free, listen);
    open.push(result);
    expect(fellBack).toBe(false);
    expect(portOf(result)).toBe(free);
  });

  it('falls back to a free port when the configured one is taken', async () => {
    const taken = await listen(0);
    open.push(taken);
    const { result, fellBack } = await listenOnPreferredPort(portOf(taken), listen);
    open.push(result);
    expect(fellBack).toBe(true);
    expect(portOf(result)).not.toBe(portOf(taken));
    expect(portOf(result)).toBeGreaterThan(0);
  });

  it('does not hide other start-up errors behind a fallback', async () => {
    let calls = 0;
    const failing = async () => {
      calls++;
      throw Object.assign(new Error('database locked'), { code: 'SQLITE_BUSY' });
    };
    await expect(listenOnPreferredPort(8765, failing)).rejects.toThrow('database locked');
    expect(calls).toBe(1);
  });
});
