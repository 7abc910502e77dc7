// Fixtures of the browser tests: the real headless server from the build on a temp data directory
// (one per test), an authenticated API request context for setting up data where the UI is not
// what a test checks, and a page that fails its test on any console error.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { test as base, expect, type APIRequestContext, type Page } from '@playwright/test';

export interface RunningServer {
  url: string;
  key: string;
  dataDir: string;
}

/** A headless server from the build on a fresh data directory; `args` adds to the command line (`--role central`). */
export async function startServer(env: Record<string, string>, args: string[] = []): Promise<{ server: RunningServer; stop(): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'shelf-audit-e2e-'));
  const key = `e2e-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  const child: ChildProcess = spawn(
    process.execPath,
    ['dist/main/cli/serve.js', '--port', '0', '--data-dir', dataDir, '--api-key', key, ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = /listening on (\S+)/.exec(line);
      if (m) resolve(m[1].replace(/\/+$/, ''));
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before listening:\n${stderr}`)));
    child.once('error', reject);
  });
  return {
    server: { url, key, dataDir },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export const SCREENSHOTS = path.resolve('test-results', 'screenshots');

/**
 * Saves the screen as the user sees it at 1366 wide. The app scrolls inside <main> (header and status
 * bar stay put), so the window is made as tall as the content for the picture, then put back.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const viewport = page.viewportSize();
  const overflow = () =>
    page.evaluate(() => {
      const main = document.querySelector('main');
      return main ? main.scrollHeight - main.clientHeight : 0;
    });
  // A taller window can make content taller (photos are sized to the window): grow until it fits.
  for (let i = 0, extra = await overflow(); viewport && extra > 0 && i < 4; i++, extra = await overflow()) {
    const current = page.viewportSize()!;
    await page.setViewportSize({ width: current.width, height: current.height + extra });
  }
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
  if (viewport) await page.setViewportSize(viewport);
}

interface TestFixtures {
  /** Extra environment for the server process (e.g. a detector model that cannot load). */
  serverEnv: Record<string, string>;
  server: RunningServer;
  api: APIRequestContext;
  /** The page, opened on the app with the server's key (as `npm start`'s #token link does). */
  app: Page;
  consoleErrors: ConsoleErrors;
}

export interface ConsoleErrors {
  errors: string[];
  /**
   * Chromium logs every 4xx answer to fetch as a console error ("Failed to load resource: ... status
   * of 400"). A test that provokes such an answer on purpose declares the status; anything else fails.
   */
  allowHttpStatus(status: number): void;
  /** Likewise for requests that fail outright (the test takes the browser offline). */
  allowNetworkFailures(): void;
}

export const test = base.extend<TestFixtures>({
  // One server and data directory per test: each test sees only the data it made.
  serverEnv: [{}, { option: true }],
  server: [
    async ({ serverEnv }, use) => {
      const running = await startServer(serverEnv);
      await use(running.server);
      await running.stop();
    },
    { timeout: 60_000 },
  ],
  baseURL: async ({ server }, use) => use(server.url),
  api: async ({ playwright, server }, use) => {
    const context = await playwright.request.newContext({
      baseURL: server.url,
      extraHTTPHeaders: { Authorization: `Token ${server.key}` },
    });
    await use(context);
    await context.dispose();
  },
  consoleErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      const allowed = new Set<number>();
      let networkFailuresAllowed = false;
      page.on('console', (m) => {
        if (m.type() !== 'error') return;
        const status = /Failed to load resource: the server responded with a status of (\d+)/.exec(m.text());
        if (status && allowed.has(Number(status[1]))) return;
        if (networkFailuresAllowed && /Failed to load resource: net::ERR_/.test(m.text())) return;
        errors.push(`console: ${m.text()} (${m.location().url})`);
      });
      page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
      await use({
        errors,
        allowHttpStatus: (s) => void allowed.add(s),
        allowNetworkFailures: () => void (networkFailuresAllowed = true),
      });
      expect(errors, 'no console errors on the page').toEqual([]);
    },
    { auto: true },
  ],
  app: async ({ page, server }, use) => {
    await page.goto(`/#token=${encodeURIComponent(server.key)}`);
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    await use(page);
  },
});

export { expect };

/** Data files the tests use, read in place (never copied into the repository). */
/** The shared data set (photos, SKU crops): ../shared/data beside the checkout, or SHARED_DATA. */
export const DATA = path.resolve(process.env.SHARED_DATA ?? path.join('..', 'shared', 'data'));
