// A supervisor's review reaches the auditor whose visit it is, as three real parties: a central on a
// throw-away PostgreSQL, an auditor's laptop and a supervisor's laptop (servers from the build). The
// auditor recognises a real shelf photo; the supervisor names the unknown boxes, deletes one, saves and
// acknowledges; after both sync, the auditor's laptop holds what the central holds: the corrected
// annotations, the correction records, the reports the review produced (following the auditor's) and
// the visit's KPI values. Work the auditor did meanwhile (a retake of the shelf in a new scene) is kept
// on every side, and the review applies to the scene it covers.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, PgCluster, api, freePort, pgRows, sqliteRows, startServe, stopServe, until, type ServerProcess } from './harness.js';
import { DATA } from '../recognition/fixtures.js';
import type { StoredBox } from '../../main/server/scenes/review.js';

interface Laptop {
  name: string;
  dir: string;
  key: string;
  server?: ServerProcess;
}

type Row = Record<string, unknown>;
const fields = (json: string): Row => Object.fromEntries(JSON.parse(json) as Array<[string, unknown]>);

/** The rows of `table` whose `column` is one of `values`, by id, in the harness's canonical form. */
const where = (rows: Map<string, string>, column: string, values: readonly unknown[]) =>
  new Map([...rows].filter(([, v]) => values.includes(fields(v)[column])).sort(([a], [b]) => a.localeCompare(b)));

/** A box as the annotations endpoint answers it (the fields this test reads). */
type Box = Pick<StoredBox, 'id' | 'x' | 'y' | 'w' | 'h' | 'sku_id'>;

describe("a supervisor's review reaches the visit's owner (central on PostgreSQL)", () => {
  const cluster = new PgCluster();
  const dirs: string[] = [];
  let centralDir: string;
  let centralPort: number;
  let centralUrl: string;
  let central: ServerProcess | undefined;
  const auditor: Laptop = { name: 'auditor', dir: '', key: '' };
  const supervisor: Laptop = { name: 'supervisor', dir: '', key: '' };
  const photos = ['test_1079.jpg', 'test_1094.jpg', 'test_1175.jpg'].map((f) => readFileSync(path.join(DATA, 'shelf-photos', f)));

  const startCentral = async () => {
    central = await startServe(['--role', 'central', '--database', cluster.url, '--data-dir', centralDir, '--port', String(centralPort)]);
  };
  const startLaptop = async (l: Laptop) => {
    l.server = await startServe(['--data-dir', l.dir, '--port', '0', '--central', centralUrl, '--device-key', l.key]);
  };
  const drained = (l: Laptop) =>
    until(`the ${l.name} to drain`, async () => {
      const s = (await api(l.server!.url, 'POST', '/api/app/v1/sync/run/')).body;
      return s.state === 'idle' && s.pending_records === 0 && s.pending_photos === 0 && s;
    }, 120_000);
  const settled = (l: Laptop) =>
    until(`the ${l.name}'s jobs`, async () => [...sqliteRows(l.dir, 'recognition_jobs').values()].every((r) => ['done', 'failed'].includes(String(fields(r).status))), 240_000);

  /** A shelf photo recognised on the auditor's laptop, in `visit` (a new one when absent). */
  const recognise = async (photo: Buffer, visit?: string) => {
    const base = auditor.server!.url;
    const form = new FormData();
    form.append('datafile', new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'shelf.jpg');
    const up = await (await fetch(`${base}/api/v1.5/uploads/`, { method: 'POST', headers: { authorization: `Token ${ADMIN_KEY}` }, body: form })).json();
    const r = await api(base, 'POST', '/api/v1.5/recognize/', { images: [up.id], ...(visit ? { visit } : {}), report_types: ['FACING_COUNT', 'REALOGRAM'] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return { image: up.id as string, scene: r.body.scene as string, visit: r.body.visit as string, reports: r.body.reports as Record<string, string> };
  };

  /** On the supervisor's laptop: every unknown box named, the first named box deleted, saved; the visit acknowledged. */
  const review = async (scene: string) => {
    const base = supervisor.server!.url;
    const read = await api(base, 'GET', `/api/v1.5/scenes/${scene}/annotations/`);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    const img = read.body.images[0] as { image: string; version: number; boxes: Box[] };
    const unknown = img.boxes.filter((b) => b.sku_id === null).length;
    expect(unknown, 'the photo has unknown boxes to name').toBeGreaterThan(0);
    const deleted = img.boxes.find((b) => b.sku_id !== null) ?? img.boxes[0];
    const boxes = img.boxes.filter((b) => b !== deleted).map((b) => ({ id: b.id, x: b.x, y: b.y, w: b.w, h: b.h, sku_id: b.sku_id ?? 'sku-fanta-pet' }));
    const saved = await api(base, 'PUT', `/api/v1.5/scenes/${scene}/annotations/`, { images: [{ image: img.image, version: img.version, boxes }] });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    await settled(supervisor);
    return { total: boxes.length, unknown, reports: saved.body.reports as Record<string, string> };
  };

  const acknowledge = async (visit: string) => {
    const base = supervisor.server!.url;
    const found = (await api(base, 'GET', `/api/data/v1.0/visits/?cid=${visit}`)).body.results[0];
    expect((await api(base, 'POST', `/api/data/v1.0/visits/${found.id}/ack/`)).status).toBe(200);
  };

  /** The newest report of a type of a scene, as a laptop or the central answers it. */
  const newest = async (base: string, scene: string, type: string) => {
    const list = (await api(base, 'GET', `/api/v1.5/reports/?scene=${scene}&report_type=${type}&limit=100`)).body.results as Array<{ id: string; created_date: string; status: string; json: unknown; previous_report: string | null }>;
    return list.sort((a, b) => a.created_date.localeCompare(b.created_date) || a.id.localeCompare(b.id)).at(-1)!;
  };

  /** What the auditor's laptop holds of a visit is what the central holds. */
  const expectSameAsCentral = async (visit: string, scenes: string[]) => {
    const c = async (t: string) => pgRows(cluster.url, t);
    const a = (t: string) => sqliteRows(auditor.dir, t);
    expect(where(a('visits'), 'id', [visit])).toEqual(where(await c('visits'), 'id', [visit]));
    for (const [table, column, values] of [
      ['scenes', 'visit_id', [visit]],
      ['scene_annotations', 'scene_id', scenes],
      ['annotation_corrections', 'scene_id', scenes],
      ['price_tag_reviews', 'scene_id', scenes],
      ['reports', 'visit_id', [visit]],
      ['kpi_values', 'visit_id', [visit]],
    ] as const) {
      expect(where(a(table), column, values), `${table} on the auditor's laptop`).toEqual(where(await c(table), column, values));
    }
    for (const scene of scenes) {
      const [mine, theirs] = await Promise.all([api(auditor.server!.url, 'GET', `/api/v1.5/scenes/${scene}/annotations/`), api(centralUrl, 'GET', `/api/v1.5/scenes/${scene}/annotations/`)]);
      expect(mine.body).toEqual(theirs.body);
      for (const type of ['FACING_COUNT', 'REALOGRAM']) expect(await newest(auditor.server!.url, scene, type)).toEqual(await newest(centralUrl, scene, type));
    }
  };

  /**
   * A visit's row in the overview's facts (domain/overview/projection.ts), read straight from the
   * table: no overview read has run, so it is what the writing transaction (a recognition, a review,
   * a pull or a push) projected.
   */
  type Facts = { review: string; photos: number; facings: number | null; unknown_facings: number } | undefined;
  const laptopFacts = (l: Laptop, visit: string): Facts => {
    const db = new Database(path.join(l.dir, 'shelf-audit.sqlite'), { readonly: true, fileMustExist: true });
    try {
      return db.prepare('SELECT review, photos, facings, unknown_facings FROM overview_visits WHERE visit_id = ?').get(visit) as Facts;
    } finally {
      db.close();
    }
  };
  const centralFacts = async (visit: string): Promise<Facts> => {
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      const r = (await client.query('SELECT review, photos, facings, unknown_facings FROM overview_visits WHERE visit_id = $1', [visit])).rows[0];
      return r ? { ...r, facings: r.facings === null ? null : Number(r.facings) } : undefined;
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await cluster.start();
    centralDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-central-'));
    dirs.push(centralDir);
    centralPort = await freePort();
    centralUrl = `http://127.0.0.1:${centralPort}`;
    await startCentral();
    const sample = JSON.parse(readFileSync(new URL('../../samples/catalog.json', import.meta.url), 'utf8'));
    expect((await api(centralUrl, 'POST', '/api/app/v1/import/', sample)).status).toBe(200);
    for (const [l, role] of [[auditor, 'auditor'], [supervisor, 'supervisor']] as const) {
      const d = await api(centralUrl, 'POST', '/api/app/v1/devices/', { name: l.name, role });
      expect(d.status).toBe(201);
      l.key = d.body.key;
      l.dir = mkdtempSync(path.join(os.tmpdir(), `shelf-audit-${l.name}-`));
      dirs.push(l.dir);
      await startLaptop(l);
      await until(`the ${l.name} to pull the catalog`, async () => (await api(l.server!.url, 'GET', '/api/v1.5/sku/')).body.count === 8);
    }
  }, 180_000);

  afterAll(async () => {
    for (const l of [auditor, supervisor]) await stopServe(l.server, 'SIGKILL');
    await stopServe(central, 'SIGKILL');
    cluster.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("the auditor's laptop ends with the central's annotations, corrections, newest reports and KPI values", async () => {
    const mine = await recognise(photos[0]);
    await settled(auditor);
    await drained(auditor);
    await until('the supervisor to have the recognised scene', async () => {
      await api(supervisor.server!.url, 'POST', '/api/app/v1/sync/run/');
      const row = sqliteRows(supervisor.dir, 'scenes').get(mine.scene);
      return row !== undefined && fields(row).analysis !== null;
    });
    // The overview's facts of the visit, projected where it was recognised, where the push brought
    // it (the central) and where the pull did (the supervisor's laptop).
    const recognised = laptopFacts(auditor, mine.visit);
    expect(recognised).toMatchObject({ review: 'unreviewed', photos: 1 });
    expect(recognised!.facings).toBeGreaterThan(0);
    expect(await centralFacts(mine.visit)).toEqual(recognised);
    await until("the supervisor's overview to show the visit as recognised", async () => {
      await api(supervisor.server!.url, 'POST', '/api/app/v1/sync/run/');
      return JSON.stringify(laptopFacts(supervisor, mine.visit)) === JSON.stringify(recognised);
    });
    // Each laptop knows its role from the central's pull: the supervisor's app opens on the overview.
    expect((await api(supervisor.server!.url, 'GET', '/api/app/v1/sync/status/')).body.device_role).toBe('supervisor');
    expect((await api(auditor.server!.url, 'GET', '/api/app/v1/sync/status/')).body.device_role).toBe('auditor');
    const reviewed = await review(mine.scene);
    // Projected by the review's own transactions on the supervisor's laptop.
    expect(laptopFacts(supervisor, mine.visit)).toEqual({ review: 'reviewed', photos: 1, facings: reviewed.total, unknown_facings: 0 });
    await acknowledge(mine.visit);
    await drained(supervisor);

    await until("the review to reach the auditor's laptop", async () => {
      await api(auditor.server!.url, 'POST', '/api/app/v1/sync/run/');
      return sqliteRows(auditor.dir, 'reports').has(reviewed.reports.FACING_COUNT) && [...sqliteRows(auditor.dir, 'scene_annotations').values()].some((r) => fields(r).scene_id === mine.scene);
    });
    await drained(auditor);
    await expectSameAsCentral(mine.visit, [mine.scene]);

    // The newest FACING_COUNT is the review's: the corrected counts, nothing unknown, following the auditor's own report.
    const facing = await newest(auditor.server!.url, mine.scene, 'FACING_COUNT');
    expect(facing).toMatchObject({ id: reviewed.reports.FACING_COUNT, status: 'READY', previous_report: mine.reports.FACING_COUNT });
    const counts = facing.json as Array<{ sku_id: string | null; count: number }>;
    expect(counts.reduce((s, r) => s + r.count, 0)).toBe(reviewed.total);
    expect(counts.find((r) => r.sku_id === null)).toBeUndefined();
    const kpi = [...sqliteRows(auditor.dir, 'kpi_values').values()].map(fields).find((v) => v.visit_id === mine.visit && v.kpi_id === 'shelf-audit:total-facings');
    expect(kpi?.value).toBe(reviewed.total);
    const corrections = await api(auditor.server!.url, 'GET', `/api/v1.5/scenes/${mine.scene}/corrections/`);
    expect(corrections.body.count).toBe(1);
    const visit = fields(sqliteRows(auditor.dir, 'visits').get(mine.visit)!);
    expect(visit.moderation).toBe('reviewed');
    // The review, pulled by the owner and pushed to the central, is in their overviews too.
    expect(laptopFacts(auditor, mine.visit)).toEqual({ review: 'reviewed', photos: 1, facings: reviewed.total, unknown_facings: 0 });
    expect(await centralFacts(mine.visit)).toEqual({ review: 'reviewed', photos: 1, facings: reviewed.total, unknown_facings: 0 });

    // The boxes named in the review became references of their SKU: learnt by the central when the
    // correction arrived (master data is the central's), then pulled by both laptops with their photo.
    const learnt = [...(await pgRows(cluster.url, 'sku_images')).values()].map(fields).filter((r) => r.source === 'review');
    expect(learnt.length).toBeGreaterThanOrEqual(1);
    expect(learnt.length).toBeLessThanOrEqual(2);
    for (const r of learnt) expect(r).toMatchObject({ sku_id: 'sku-fanta-pet', upload_id: mine.image, correction_id: corrections.body.results[0].id });
    const ids = learnt.map((r) => r.id).sort();
    for (const l of [auditor, supervisor]) {
      await until(`the ${l.name} to pull the learnt references`, async () => {
        await api(l.server!.url, 'POST', '/api/app/v1/sync/run/');
        const refs = (await api(l.server!.url, 'GET', '/api/v1.5/sku/sku-fanta-pet/images/')).body.results as Array<{ id: string; source: string }>;
        return JSON.stringify(refs.filter((r) => r.source === 'review').map((r) => r.id).sort()) === JSON.stringify(ids);
      });
      expect(sqliteRows(l.dir, 'uploads').has(mine.image)).toBe(true);
    }

    // Read-only on the owner's laptop: the review and its reports stay the supervisor's.
    const a = auditor.server!.url;
    const overwrite = await api(a, 'PUT', `/api/v1.5/scenes/${mine.scene}/annotations/`, { images: [{ image: mine.image, version: 1, boxes: [] }] });
    expect(overwrite.status, JSON.stringify(overwrite.body)).toBe(403);
    expect(overwrite.body.detail).toMatch(/reviewed on another laptop/);
    const recompute = await api(a, 'POST', '/api/v1.5/reports/force_update/', { reports: [reviewed.reports.FACING_COUNT] });
    expect(recompute.status, JSON.stringify(recompute.body)).toBe(403);
    // The auditor's own report may run again: it is built with the review laid over it.
    expect((await api(a, 'POST', '/api/v1.5/reports/force_update/', { reports: [mine.reports.FACING_COUNT] })).status).toBe(200);
    await settled(auditor);
    const own = (await api(a, 'GET', `/api/v1.5/reports/${mine.reports.FACING_COUNT}/`)).body;
    expect(own.json).toEqual(facing.json);
    await drained(auditor);
    await expectSameAsCentral(mine.visit, [mine.scene]);

    // The supervisor's review of the photo's price tags (migration 0029) travels the same way: to the
    // central and the visit's owner, read-only there.
    const s = supervisor.server!.url;
    // The auditor's force_update analysed the scene again: the supervisor reviews once it has that
    // analysis (a pull in between may have brought the scene without one).
    await until('the supervisor to have the scene analysed again', async () => {
      await api(s, 'POST', '/api/app/v1/sync/run/');
      const row = sqliteRows(supervisor.dir, 'scenes').get(mine.scene);
      return row !== undefined && fields(row).analysis !== null;
    });
    const tagsRead = await api(s, 'GET', `/api/v1.5/scenes/${mine.scene}/price_tags/`);
    expect(tagsRead.status, JSON.stringify(tagsRead.body)).toBe(200);
    const tagsSaved = await api(s, 'PUT', `/api/v1.5/scenes/${mine.scene}/price_tags/`, { images: [{ image: mine.image, version: 0, tags: [] }] });
    expect(tagsSaved.status, JSON.stringify(tagsSaved.body)).toBe(200);
    await settled(supervisor);
    await drained(supervisor);
    await until("the price-tag review to reach the auditor's laptop", async () => {
      await api(a, 'POST', '/api/app/v1/sync/run/');
      return [...sqliteRows(auditor.dir, 'price_tag_reviews').values()].some((r) => fields(r).scene_id === mine.scene) && sqliteRows(auditor.dir, 'reports').has(tagsSaved.body.reports.FACING_COUNT);
    });
    const tagsOverwrite = await api(a, 'PUT', `/api/v1.5/scenes/${mine.scene}/price_tags/`, { images: [{ image: mine.image, version: 1, tags: [] }] });
    expect(tagsOverwrite.status, JSON.stringify(tagsOverwrite.body)).toBe(403);
    expect(tagsOverwrite.body.detail).toMatch(/reviewed on another laptop/);
    await drained(auditor);
    await expectSameAsCentral(mine.visit, [mine.scene]);
  }, 480_000);

  it('a retake the auditor made meanwhile is kept everywhere; the review applies to the scene it covers', async () => {
    const first = await recognise(photos[1]);
    await settled(auditor);
    await drained(auditor);
    await until('the supervisor to have the recognised scene', async () => {
      await api(supervisor.server!.url, 'POST', '/api/app/v1/sync/run/');
      const row = sqliteRows(supervisor.dir, 'scenes').get(first.scene);
      return row !== undefined && fields(row).analysis !== null;
    });
    // Both work offline: the supervisor reviews the first photo while the auditor retakes the shelf.
    await stopServe(central);
    const reviewed = await review(first.scene);
    await acknowledge(first.visit);
    const retake = await recognise(photos[2], first.visit);
    await settled(auditor);
    await startCentral();
    await drained(supervisor);
    await drained(auditor);
    await until("the review to reach the auditor's laptop", async () => {
      await api(auditor.server!.url, 'POST', '/api/app/v1/sync/run/');
      return sqliteRows(auditor.dir, 'reports').has(reviewed.reports.FACING_COUNT);
    });
    // Each side settles the visit's review state from what it then holds; one more round each brings
    // the other's.
    await drained(supervisor);
    await drained(auditor);
    await expectSameAsCentral(first.visit, [first.scene, retake.scene]);
    // The retake is the auditor's own and unreviewed; the visit is in review on both sides, not reviewed and not unreviewed.
    expect(await newest(auditor.server!.url, retake.scene, 'FACING_COUNT')).toMatchObject({ id: retake.reports.FACING_COUNT, status: 'READY' });
    expect((await api(auditor.server!.url, 'GET', `/api/v1.5/scenes/${retake.scene}/annotations/`)).body.reviewed).toBe(false);
    expect((await newest(auditor.server!.url, first.scene, 'FACING_COUNT')).id).toBe(reviewed.reports.FACING_COUNT);
    expect(fields(sqliteRows(auditor.dir, 'visits').get(first.visit)!).moderation).toBe('in_review');
    // The supervisor has the retake too, to review next.
    await until('the supervisor to have the retake', async () => {
      await api(supervisor.server!.url, 'POST', '/api/app/v1/sync/run/');
      return sqliteRows(supervisor.dir, 'scenes').has(retake.scene) && fields(sqliteRows(supervisor.dir, 'visits').get(first.visit)!).moderation === 'in_review';
    });
  }, 480_000);
});
