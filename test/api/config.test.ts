// Every SHELF_AUDIT_* setting of the server is read in config.ts, with its default; a value that is not
// a number stops the start with its name rather than running on NaN.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverSettings } from '../../main/server/config/config.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : full.endsWith('.ts') ? [full] : [];
  });
}

describe('server settings', () => {
  it('has defaults, reads the environment, and refuses a non-number', () => {
    expect(serverSettings({})).toEqual({
      recognitionConcurrency: 1,
      jobLeaseMs: undefined,
      webhookBackoffMs: 5000,
      identifyThreads: 0,
      embedThreads: 2,
      // One core stays for the main thread on a 2-core machine.
      detectorThreads: Math.max(1, Math.min(2, os.availableParallelism() - 1)),
      analysisNice: 10,
      allowPrivateUrls: false,
      sync: { intervalMs: undefined, backoffMs: undefined, maxBackoffMs: undefined },
      syncPullPage: 2000,
      readPrices: true,
      detectorModel: null,
      embedderModel: null,
      objectStore: null,
      // Not set: the entry decides (serve warms before listening, the desktop's server does not).
      warmUpBeforeListen: null,
    });
    expect(serverSettings({ SHELF_AUDIT_WARM_UP_BEFORE_LISTEN: '0' }).warmUpBeforeListen).toBe(0);
    expect(serverSettings({ SHELF_AUDIT_WARM_UP_BEFORE_LISTEN: '500' }).warmUpBeforeListen).toBe(500);
    expect(() => serverSettings({ SHELF_AUDIT_WARM_UP_BEFORE_LISTEN: 'lots' })).toThrow(/SHELF_AUDIT_WARM_UP_BEFORE_LISTEN must be a number/);
    // The central's bucket: on with a bucket name; path-style by default with an endpoint of its own.
    expect(serverSettings({ SHELF_AUDIT_S3_BUCKET: 'photos', SHELF_AUDIT_S3_ENDPOINT: 'http://127.0.0.1:7480' }).objectStore).toEqual({
      bucket: 'photos',
      endpoint: 'http://127.0.0.1:7480',
      region: 'us-east-1',
      pathStyle: true,
      timeoutMs: 10000,
    });
    expect(serverSettings({ SHELF_AUDIT_S3_BUCKET: 'photos', SHELF_AUDIT_S3_REGION: 'eu-west-1' }).objectStore).toMatchObject({ endpoint: null, region: 'eu-west-1', pathStyle: false });
    expect(() => serverSettings({ SHELF_AUDIT_S3_BUCKET: 'photos', SHELF_AUDIT_S3_ENDPOINT: 'minio:9000' })).toThrow(/SHELF_AUDIT_S3_ENDPOINT must be an http/);
    expect(() => serverSettings({ SHELF_AUDIT_S3_BUCKET: 'photos', SHELF_AUDIT_S3_PATH_STYLE: 'maybe' })).toThrow(/SHELF_AUDIT_S3_PATH_STYLE must be 1 or 0/);
    expect(serverSettings({ SHELF_EMBEDDER_MODEL: '/models/e.onnx' }).embedderModel).toBe('/models/e.onnx');
    expect(serverSettings({ SHELF_AUDIT_SYNC_INTERVAL_MS: '400', SHELF_AUDIT_SYNC_PULL_PAGE: '7' })).toMatchObject({ sync: { intervalMs: 400 }, syncPullPage: 7 });
    expect(serverSettings({ SHELF_AUDIT_RECOGNITION_CONCURRENCY: '3', SHELF_AUDIT_JOB_LEASE_MS: '2000' })).toMatchObject({ recognitionConcurrency: 3, jobLeaseMs: 2000 });
    expect(serverSettings({ SHELF_AUDIT_DETECTOR_THREADS: '4' }).detectorThreads).toBe(4);
    expect(() => serverSettings({ SHELF_AUDIT_EMBED_THREADS: 'many' })).toThrow(/SHELF_AUDIT_EMBED_THREADS must be a number/);
    expect(serverSettings({ SHELF_AUDIT_READ_PRICES: '0' }).readPrices).toBe(false);
    expect(() => serverSettings({ SHELF_AUDIT_READ_PRICES: 'sometimes' })).toThrow(/SHELF_AUDIT_READ_PRICES must be 1 or 0/);
  });

  it('is the only place in the server that reads a SHELF_AUDIT_* variable', () => {
    const readers = sources('main/server').filter((f) => !f.endsWith(path.join('server', 'config.ts')) && /process\.env(\.|\[)\s*['"]?SHELF_AUDIT_/.test(readFileSync(f, 'utf8')));
    expect(readers).toEqual([]);
  });
});
