// Work that the first requests of a freshly started server would otherwise do, done as soon as it
// listens: the app's page is still loading its scripts then (hundreds of milliseconds in which the
// server is idle), so its first screen's requests find the lists' orders computed, the database's
// pages read and the model digests known. Each task runs in a turn of its own, so a request that
// arrives meanwhile waits for one task at most. Nothing runs without listen() (tests that inject),
// and close() waits for the task running.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Adds a task run once the server listens, in the order added; its failure is only logged. */
    warmUp(name: string, task: () => Promise<unknown>): void;
    /** The warm-up's tasks with their times, once all ran (none before listen()). */
    warmedUp(): Promise<WarmUpRun[]>;
  }
}

export interface WarmUpRun {
  name: string;
  ms: number;
  error?: unknown;
}

export const warmUpPlugin = fp(
  async (app: FastifyInstance) => {
    const tasks: Array<{ name: string; task: () => Promise<unknown> }> = [];
    let closing = false;
    let running: Promise<WarmUpRun[]> | undefined;
    app.decorate('warmUp', (name: string, task: () => Promise<unknown>) => void tasks.push({ name, task }));
    app.addHook('onListen', async () => {
      running = (async () => {
        const runs: WarmUpRun[] = [];
        for (const { name, task } of tasks) {
          await new Promise((resolve) => setImmediate(resolve));
          if (closing) break;
          const t = performance.now();
          try {
            await task();
            runs.push({ name, ms: performance.now() - t });
          } catch (error) {
            runs.push({ name, ms: performance.now() - t, error });
            app.log.warn({ err: error }, `warm-up ${name} failed`);
          }
        }
        app.log.debug({ runs }, 'warm-up done');
        return runs;
      })();
    });
    app.addHook('onClose', async () => {
      closing = true;
      await running;
    });
    app.decorate('warmedUp', () => running ?? Promise.resolve([]));
  },
  { name: 'shelf-audit-warm-up' },
);
