// The auditor sees the supervisor's review of their visit. Three parties as real servers: a central,
// the auditor's laptop (the one in the browser) and a supervisor's laptop. The auditor recognises a
// shelf; the supervisor, on their own laptop, names the unknown boxes, deletes one, saves and
// acknowledges; after both sync, the auditor's visit screen shows the reviewed counts, who reviewed it
// and when, and what the review changed.
import { readFileSync } from 'node:fs';
import { expect, screenshot, startServer, test, type RunningServer } from './fixtures.js';
import { composeShelf } from './shelfPhoto.js';

const SYNC_ENV = { SHELF_AUDIT_SYNC_INTERVAL_MS: '500', SHELF_AUDIT_SYNC_BACKOFF_MS: '200', SHELF_AUDIT_SYNC_MAX_BACKOFF_MS: '1000' };
test.use({ serverEnv: SYNC_ENV });
test.setTimeout(600_000);

async function call(server: RunningServer, method: string, path: string, body?: unknown) {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Token ${server.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Syncs `server` until nothing waits and `done` holds. */
async function syncUntil(server: RunningServer, what: string, done: () => Promise<boolean> = async () => true) {
  await expect
    .poll(
      async () => {
        const s = (await call(server, 'POST', '/api/app/v1/sync/run/')).body;
        return s.state === 'idle' && s.pending_records === 0 && (await done());
      },
      { message: what, timeout: 120_000, intervals: [300] },
    )
    .toBe(true);
}

/** Every report of `server` (a laptop's) is computed. */
async function reportsReady(server: RunningServer, visit: string) {
  await expect
    .poll(async () => ((await call(server, 'GET', `/api/v1.5/reports/?visit=${visit}&limit=100`)).body.results as Array<{ status: string }>).every((r) => r.status !== 'NOT_READY'), {
      message: 'reports computed',
      timeout: 240_000,
      intervals: [500],
    })
    .toBe(true);
}

test("the auditor's visit screen shows the supervisor's review: reviewed counts, reviewer and time, what changed", async ({ app: page, server: auditor }, testInfo) => {
  const central = await startServer({}, ['--role', 'central']);
  let supervisor: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const catalog = JSON.parse(readFileSync('samples/catalog.json', 'utf8'));
    expect((await call(central.server, 'POST', '/api/app/v1/import/', catalog)).status).toBe(200);
    const keys: Record<string, string> = {};
    for (const role of ['auditor', 'supervisor']) {
      const d = await call(central.server, 'POST', '/api/app/v1/devices/', { name: `${role}'s laptop`, role });
      expect(d.status).toBe(201);
      keys[role] = d.body.key;
    }
    expect((await call(auditor, 'PUT', '/api/app/v1/sync/settings/', { central_url: central.server.url, device_key: keys.auditor })).status).toBe(200);
    await syncUntil(auditor, 'the auditor to pull the catalog', async () => (await call(auditor, 'GET', '/api/v1.5/sku/')).body.count === 8);

    // The auditor recognises a shelf (the catalog has no reference images: every product is unknown).
    const photo = testInfo.outputPath('shelf.jpg');
    await composeShelf(photo, [[['cocacola_pet', 3], ['sprite_pet', 2]], [['fanta_pet', 3]]]);
    const form = new FormData();
    form.append('datafile', new Blob([new Uint8Array(readFileSync(photo))], { type: 'image/jpeg' }), 'shelf.jpg');
    const up = await (await fetch(`${auditor.url}/api/v1.5/uploads/`, { method: 'POST', headers: { authorization: `Token ${auditor.key}` }, body: form })).json();
    expect((await call(auditor, 'POST', '/api/v1.5/visits/', { id: 'visit-reviewed', shop: 'Store 9', agent: 'dana' })).status).toBe(201);
    const r = await call(auditor, 'POST', '/api/v1.5/recognize/', { images: [up.id], visit: 'visit-reviewed', report_types: ['FACING_COUNT', 'REALOGRAM'] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    await reportsReady(auditor, 'visit-reviewed');
    await syncUntil(auditor, 'the auditor to push the visit');

    // The supervisor, on their laptop: every unknown box named Fanta, one deleted, saved, acknowledged.
    supervisor = await startServer(SYNC_ENV, ['--central', central.server.url, '--device-key', keys.supervisor]);
    const s = supervisor.server;
    await syncUntil(s, 'the supervisor to pull the scene', async () => (await call(s, 'GET', `/api/v1.5/scenes/${r.body.scene}/annotations/`)).status === 200);
    const read = (await call(s, 'GET', `/api/v1.5/scenes/${r.body.scene}/annotations/`)).body;
    const img = read.images[0] as { image: string; version: number; boxes: Array<{ id: string; x: number; y: number; w: number; h: number; sku_id: string | null }> };
    const unknown = img.boxes.filter((b) => b.sku_id === null);
    expect(unknown.length).toBeGreaterThan(2);
    const kept = img.boxes.slice(1).map((b) => ({ id: b.id, x: b.x, y: b.y, w: b.w, h: b.h, sku_id: b.sku_id ?? 'sku-fanta-pet' }));
    const saved = await call(s, 'PUT', `/api/v1.5/scenes/${r.body.scene}/annotations/`, { images: [{ image: img.image, version: img.version, boxes: kept }] });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    await reportsReady(s, 'visit-reviewed');
    const dataVisit = (await call(s, 'GET', '/api/data/v1.0/visits/?cid=visit-reviewed')).body.results[0];
    expect((await call(s, 'POST', `/api/data/v1.0/visits/${dataVisit.id}/ack/`)).status).toBe(200);
    await syncUntil(s, 'the supervisor to push the review');

    // The auditor syncs and opens the visit.
    await syncUntil(auditor, "the review to reach the auditor's laptop", async () => (await call(auditor, 'GET', `/api/v1.5/reports/${saved.body.reports.FACING_COUNT}/`)).body?.status === 'READY');
    await page.goto(`/#/visits/visit-reviewed`);
    const review = page.getByRole('region', { name: 'Review' });
    await expect(review.getByRole('status', { name: 'Review state' })).toContainText(/^Reviewed by a supervisor on .+ \(reviewer key [0-9a-f]{8}\)$/);
    const changes = review.getByRole('list', { name: 'Changed in review' });
    await expect(changes.getByRole('listitem')).toHaveText([`Relabelled ${unknown.length - 1} boxes: Unknown products → Fanta Orange PET 0.5 l`, 'Removed 1 box of Unknown products']);
    const counts = review.getByRole('table', { name: 'Counts after review' });
    await expect(counts.locator('tbody tr')).toHaveText([/Fanta Orange PET 0\.5 l\s*\d+ \(was 0\)/, new RegExp(`Unknown products\\s*0 \\(was ${unknown.length}\\)`)]);
    await expect(counts.locator('tfoot td')).toHaveText(String(kept.length));
    // The visit's own figures are the reviewed ones: its newest facing counts and its KPI.
    await expect(page.getByRole('table', { name: 'Facing counts' }).locator('tfoot td')).toHaveText(String(kept.length));
    await expect(page.getByRole('table', { name: 'Facing counts' })).not.toContainText('Unknown products');
    await expect(page.getByText('Acknowledged', { exact: true })).toBeVisible();
    await screenshot(page, 'review-reached-auditor');
  } finally {
    await supervisor?.stop();
    await central.stop();
  }
});
