import { defineConfig } from '@playwright/test';

// Browser tests against the real headless server (started per worker by test/e2e/fixtures.ts from the
// build, on a temp data directory) in Debian's Chromium. One worker: the machine has two cores.
export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  workers: 1,
  fullyParallel: false,
  forbidOnly: true,
  retries: 0,
  timeout: 180_000,
  expect: { timeout: 15_000 },
  // Not `test-results` itself: Playwright empties its output folder, and the test runner writes the
  // Vitest summary and the screenshots there.
  outputDir: 'test-results/playwright-artifacts',
  // test/run-all.mjs sets PLAYWRIGHT_JSON_OUTPUT_NAME to count the results; otherwise list only.
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  use: {
    browserName: 'chromium',
    viewport: { width: 1366, height: 768 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
