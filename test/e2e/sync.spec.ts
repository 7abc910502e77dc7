// Sync as a user sees it: Settings points the laptop at a central with a device key, the status bar
// follows the state (not set up, up to date, unreachable with work waiting), "Sync now" runs a round,
// and master data from the central shows up on the laptop's screens. The central runs as in
// production: `--role central` on PostgreSQL (a throw-away cluster, scripts/pg-cluster.mjs).
import { PgCluster } from '../../scripts/pg-cluster.mjs';
import { expect, startServer, test, type RunningServer } from './fixtures.js';

test.use({ serverEnv: { SHELF_AUDIT_SYNC_INTERVAL_MS: '500', SHELF_AUDIT_SYNC_BACKOFF_MS: '200', SHELF_AUDIT_SYNC_MAX_BACKOFF_MS: '1000' } });

async function call(server: RunningServer, method: string, path: string, body?: unknown) {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Token ${server.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}

test('a laptop is pointed at its central in Settings and the status bar follows its sync', async ({ app, api }) => {
  const cluster = new PgCluster();
  await cluster.start();
  /** A database of its own in the cluster: each central started here begins with an empty store. */
  const database = (name: string) => {
    cluster.run('psql', ['-h', cluster.dir, '-p', String(cluster.port), '-U', 'postgres', '-c', `CREATE DATABASE ${name}`]);
    return cluster.url.replace('/postgres?', `/${name}?`);
  };
  let central = await startServer({}, ['--role', 'central', '--database', database('central_one')]);
  try {
    const device = await call(central.server, 'POST', '/api/app/v1/devices/', { name: 'e2e laptop', role: 'auditor' });
    expect(device.status).toBe(201);
    expect((await call(central.server, 'POST', '/api/v1.5/brands/', { id: 'brand-central', name: 'Brand from the central' })).status).toBe(201);

    const bar = app.getByRole('contentinfo', { name: 'Status' });
    await expect(bar).toContainText('Sync: not set up');
    await app.getByRole('link', { name: 'Settings' }).click();
    await app.getByLabel('Central URL').fill(central.server.url);
    await app.getByLabel('Device key').fill(device.body.key);
    await app.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(app.getByText('Saved.')).toBeVisible();
    await expect(bar).toContainText('Sync: up to date', { timeout: 30_000 });
    // The key is stored, never shown back.
    await expect(app.getByLabel('Device key')).toHaveValue('');
    await expect(app.getByLabel('Device key')).toHaveAttribute('placeholder', /Stored/);

    // Master data came down.
    const brands = await api.get('/api/v1.5/brands/brand-central/');
    expect(brands.status()).toBe(200);

    // The central goes away: work done here waits, and the bar says so.
    const centralUrl = central.server.url;
    await central.stop();
    expect((await api.post('/api/v1.5/visits/', { data: { shop: 'shop while offline' } })).status()).toBe(201);
    await expect(bar).toContainText(/Sync: central unreachable, \d+ changes? waiting/, { timeout: 30_000 });
    await expect(app.getByRole('status', { name: 'Sync state' })).toContainText('queued');

    // It comes back (same port, fresh store) and "Sync now" empties the queue.
    central = await startServer({}, ['--role', 'central', '--database', database('central_two'), '--port', new URL(centralUrl).port]);
    const again = await call(central.server, 'POST', '/api/app/v1/devices/', { name: 'e2e laptop', role: 'auditor' });
    await app.getByLabel('Device key').fill(again.body.key);
    await app.getByRole('button', { name: 'Save', exact: true }).click();
    await app.getByRole('button', { name: 'Sync now' }).first().click();
    await expect(bar).toContainText('Sync: up to date', { timeout: 30_000 });
    await expect(app.getByRole('status', { name: 'Sync state' })).toContainText('Up to date');
  } finally {
    await central.stop();
    cluster.stop();
  }
});
