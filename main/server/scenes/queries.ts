// Every query of the scene's code, in one module: its own tables (scenes, reports, recognition jobs,
// webhook deliveries and their secret, scene messages, reviewed annotations and their corrections,
// price-tag reviews)
// and what it reads of master data. The lifecycle modules beside it decide; this one only reads and
// writes, so a table's every use is found here. Functions take the database or an open transaction
// (`Db`); writes that must sync take a transaction of `write()` and the caller records the change.
import type { Kysely } from 'kysely';
import { isPostgres } from '../storage/dialect.js';
import type { SyncEntityName } from '../storage/sync-registry.js';
import type {
  AnnotationCorrectionTable,
  Database,
  JobStatus,
  KpiTable,
  KpiValueTable,
  MessageTable,
  OosReasonTable,
  PriceTagReviewTable,
  RecognitionJobTable,
  ReportStatus,
  ReportTable,
  SceneAnnotationTable,
  SceneTable,
  SkuImageTable,
  WebhookDeliveryTable,
} from '../storage/schema.js';

/** The database, or a transaction of it. */
export type Db = Kysely<Database>;
type Row<T> = Omit<T, 'data_id'>;
export interface Page {
  limit: number;
  offset: number;
}

// --- scenes ---

export type SceneRow = Row<SceneTable>;

export async function insertScene(db: Db, row: SceneRow): Promise<void> {
  await db.insertInto('scenes').values(row).execute();
}

export async function findScene(db: Db, id: string): Promise<SceneRow | undefined> {
  return db.selectFrom('scenes').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function sceneExists(db: Db, id: string): Promise<boolean> {
  return (await db.selectFrom('scenes').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** A visit's scenes in the order they were sent. */
export async function scenesOfVisit(db: Db, visitId: string): Promise<SceneRow[]> {
  return db.selectFrom('scenes').selectAll().where('visit_id', '=', visitId).orderBy('data_id').execute();
}

/** The photos of each of a visit's scenes (what its review state is counted over). */
export async function scenePhotosOfVisit(db: Db, visitId: string): Promise<Pick<SceneTable, 'id' | 'images'>[]> {
  return db.selectFrom('scenes').select(['id', 'images']).where('visit_id', '=', visitId).execute();
}

export async function scenesByIds(db: Db, ids: readonly string[]): Promise<Pick<SceneTable, 'id' | 'images'>[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('scenes').select(['id', 'images']).where('id', 'in', ids).orderBy('data_id').execute();
}

/** Stores the photos' analysis, or clears it (null) so the next job detects and identifies again. */
export async function setSceneAnalysis(db: Db, id: string, analysis: string | null, at: string): Promise<void> {
  await db.updateTable('scenes').set({ analysis, updated_at: at }).where('id', '=', id).execute();
}

// --- reports ---

export type ReportRow = Row<ReportTable>;

export async function insertReport(db: Db, row: ReportRow): Promise<void> {
  await db.insertInto('reports').values(row).execute();
}

/**
 * The latest report of a type on a display created at or before `at`; ties in time go to the later
 * row (data_id).
 */
export async function latestReportOnDisplay(db: Db, display: string, reportType: string, at: string): Promise<string | null> {
  const row = await db
    .selectFrom('reports')
    .innerJoin('scenes', 'scenes.id', 'reports.scene_id')
    .select('reports.id')
    .where('scenes.display_id', '=', display)
    .where('reports.report_type', '=', reportType)
    .where('reports.created_at', '<=', at)
    .orderBy('reports.created_at', 'desc')
    .orderBy('reports.data_id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? null;
}

export interface ReportFilters {
  visit?: string;
  scene?: string;
  report_type?: string;
  status?: string;
}

export async function listReportRows(db: Db, page: Page, f: ReportFilters): Promise<{ count: number; rows: ReportRow[] }> {
  let q = db.selectFrom('reports');
  if (f.visit !== undefined) q = q.where('visit_id', '=', f.visit);
  if (f.scene !== undefined) q = q.where('scene_id', '=', f.scene);
  if (f.report_type !== undefined) q = q.where('report_type', '=', f.report_type);
  if (f.status !== undefined) q = q.where('status', '=', f.status as ReportStatus);
  const [{ n }] = await q.select((eb) => eb.fn.countAll().as('n')).execute();
  const rows = await q.selectAll().orderBy('data_id').limit(page.limit).offset(page.offset).execute();
  return { count: Number(n), rows };
}

export async function findReport(db: Db, id: string): Promise<ReportRow | undefined> {
  return db.selectFrom('reports').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function reportScenes(db: Db, ids: readonly string[]): Promise<Pick<ReportTable, 'id' | 'scene_id'>[]> {
  return db.selectFrom('reports').select(['id', 'scene_id']).where('id', 'in', ids).execute();
}

/** A scene's reports, oldest first. */
export async function reportsOfScene(db: Db, sceneId: string): Promise<Pick<ReportTable, 'id' | 'report_type'>[]> {
  return db.selectFrom('reports').select(['id', 'report_type']).where('scene_id', '=', sceneId).orderBy('data_id').execute();
}

/** Of these reports, the ones still to build, oldest first. */
export async function unbuiltReports(db: Db, ids: readonly string[]): Promise<ReportRow[]> {
  return db.selectFrom('reports').selectAll().where('id', 'in', ids).where('status', '=', 'NOT_READY').orderBy('data_id').execute();
}

export async function markReportsNotReady(db: Db, ids: readonly string[], at: string): Promise<void> {
  await db.updateTable('reports').set({ status: 'NOT_READY', error: null, updated_at: at }).where('id', 'in', ids).execute();
}

export async function setReportResult(db: Db, id: string, result: { status: ReportStatus; json?: string | null; error: string | null }, at: string): Promise<void> {
  await db.updateTable('reports').set({ ...result, updated_at: at }).where('id', '=', id).execute();
}

// --- recognition jobs ---

export type JobRow = Row<RecognitionJobTable>;

export async function insertJob(db: Db, row: JobRow): Promise<void> {
  await db.insertInto('recognition_jobs').values(row).execute();
}

export async function runningJobs(db: Db): Promise<Pick<RecognitionJobTable, 'id' | 'lease_owner'>[]> {
  return db.selectFrom('recognition_jobs').select(['id', 'lease_owner']).where('status', '=', 'running').execute();
}

/** Queues a running job again if it is still leased by `owner`. */
export async function requeueJob(db: Db, id: string, owner: string | null, at: string): Promise<void> {
  await db
    .updateTable('recognition_jobs')
    .set({ status: 'queued', lease_owner: null, lease_until: null, updated_at: at })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .execute();
}

/** The oldest queued job, or a running one whose lease ended before `at` (on PostgreSQL, skipping rows another process is claiming). */
export async function nextClaimableJob(db: Db, at: string): Promise<JobRow | undefined> {
  return db
    .selectFrom('recognition_jobs')
    .selectAll()
    .where((eb) => eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb('lease_until', '<', at)])]))
    .orderBy('data_id')
    .limit(1)
    .$if(isPostgres(db), (q) => q.forUpdate().skipLocked())
    .executeTakeFirst();
}

/** Leases the job if it is still as `seen` (compare-and-set); false when another process was first. */
export async function leaseJob(db: Db, seen: JobRow, lease: { owner: string; until: string; attempts: number }, at: string): Promise<boolean> {
  const r = await db
    .updateTable('recognition_jobs')
    .set({ status: 'running', attempts: lease.attempts, lease_owner: lease.owner, lease_until: lease.until, updated_at: at })
    .where('id', '=', seen.id)
    .where('status', '=', seen.status)
    .where('attempts', '=', seen.attempts)
    .where((eb) => (seen.lease_owner === null ? eb('lease_owner', 'is', null) : eb('lease_owner', '=', seen.lease_owner)))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function extendLease(db: Db, id: string, owner: string, until: string): Promise<boolean> {
  const r = await db
    .updateTable('recognition_jobs')
    .set({ lease_until: until })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Ends a job's lease with a new status (and its last error, when given). */
export async function endJobLease(db: Db, id: string, status: JobStatus, at: string, lastError?: string): Promise<void> {
  await db
    .updateTable('recognition_jobs')
    .set({ status, lease_owner: null, lease_until: null, ...(lastError !== undefined ? { last_error: lastError } : {}), updated_at: at })
    .where('id', '=', id)
    .execute();
}

/** Queues a running job of `owner` again without counting the attempt. */
export async function unclaimJob(db: Db, id: string, owner: string, at: string): Promise<void> {
  await db
    .updateTable('recognition_jobs')
    .set((eb) => ({ status: 'queued', attempts: eb('attempts', '-', 1), lease_owner: null, lease_until: null, updated_at: at }))
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .execute();
}

export async function countPendingJobs(db: Db): Promise<number> {
  const [{ n }] = await db
    .selectFrom('recognition_jobs')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('status', 'in', ['queued', 'running'])
    .execute();
  return Number(n);
}

// --- webhook deliveries and their signing secret ---

export type DeliveryRow = Row<WebhookDeliveryTable>;

export async function insertDelivery(db: Db, row: DeliveryRow): Promise<void> {
  await db.insertInto('webhook_deliveries').values(row).execute();
}

/** Pending deliveries due at `at`, the most overdue first. */
export async function dueDeliveries(db: Db, at: string, limit: number): Promise<DeliveryRow[]> {
  return db.selectFrom('webhook_deliveries').selectAll().where('status', '=', 'pending').where('next_attempt_at', '<=', at).orderBy('next_attempt_at').limit(limit).execute();
}

export async function updateDelivery(db: Db, id: string, update: Partial<Omit<DeliveryRow, 'id'>>): Promise<void> {
  await db.updateTable('webhook_deliveries').set(update).where('id', '=', id).execute();
}

export async function listDeliveryRows(db: Db, page: Page, f: { status?: string; scene?: string; report?: string }): Promise<{ count: number; rows: DeliveryRow[] }> {
  let q = db.selectFrom('webhook_deliveries');
  if (f.status !== undefined) q = q.where('status', '=', f.status as WebhookDeliveryTable['status']);
  if (f.scene !== undefined) q = q.where('scene_id', '=', f.scene);
  if (f.report !== undefined) q = q.where('report_id', '=', f.report);
  const [{ n }] = await q.select((eb) => eb.fn.countAll().as('n')).execute();
  const rows = await q.selectAll().orderBy('data_id').limit(page.limit).offset(page.offset).execute();
  return { count: Number(n), rows };
}

/** A recognition setting (the webhook secret); `initial` is stored first when there is none (the first writer wins). */
export async function recognitionSetting(db: Db, name: string, initial: () => string): Promise<string> {
  const row = await db.selectFrom('recognition_settings').select('value').where('name', '=', name).executeTakeFirst();
  if (row) return row.value;
  await db
    .insertInto('recognition_settings')
    .values({ name, value: initial() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  return (await db.selectFrom('recognition_settings').select('value').where('name', '=', name).executeTakeFirstOrThrow()).value;
}

// --- scene messages (recognition errors, out-of-stock reasons) ---

export type MessageKind = 'recognition_errors' | 'oos_reasons';

export async function insertMessage(db: Db, kind: MessageKind, row: Row<OosReasonTable>): Promise<void> {
  if (kind === 'oos_reasons') await db.insertInto('oos_reasons').values(row).execute();
  else {
    const { reason: _reason, ...message } = row;
    await db.insertInto('recognition_errors').values(message).execute();
  }
}

export async function listMessageRows(db: Db, kind: MessageKind, page: Page, scene?: string): Promise<{ count: number; rows: (Row<MessageTable> & { reason?: string | null })[] }> {
  let count = db.selectFrom(kind).select((eb) => eb.fn.countAll().as('n'));
  let q = db.selectFrom(kind).selectAll();
  if (scene !== undefined) {
    count = count.where('scene_id', '=', scene);
    q = q.where('scene_id', '=', scene);
  }
  const rows = await q.orderBy('data_id').limit(page.limit).offset(page.offset).execute();
  return { count: Number((await count.executeTakeFirstOrThrow()).n), rows };
}

// --- reviewed annotations and their corrections ---

export type AnnotationRow = Pick<SceneAnnotationTable, 'id' | 'scene_id' | 'image_id' | 'version' | 'boxes' | 'reviewer' | 'updated_at'>;

export async function annotationsOfScene(db: Db, sceneId: string): Promise<AnnotationRow[]> {
  return db.selectFrom('scene_annotations').select(['id', 'scene_id', 'image_id', 'version', 'boxes', 'reviewer', 'updated_at']).where('scene_id', '=', sceneId).execute();
}

/** Every reviewed photo's boxes, in the order they were first reviewed. */
export async function reviewedPhotos(db: Db): Promise<Pick<SceneAnnotationTable, 'scene_id' | 'image_id' | 'boxes' | 'updated_at' | 'version'>[]> {
  return db.selectFrom('scene_annotations').select(['scene_id', 'image_id', 'boxes', 'updated_at', 'version']).where('version', '>', 0).orderBy('data_id').execute();
}

export async function countReviewedPhotos(db: Db, sceneIds: readonly string[]): Promise<number> {
  if (sceneIds.length === 0) return 0;
  const { n } = await db
    .selectFrom('scene_annotations')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('scene_id', 'in', sceneIds)
    .where('version', '>', 0)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** Saves a photo's boxes over `version` (optimistic concurrency); false when another save got there first. */
export async function updateAnnotation(db: Db, id: string, version: number, set: Pick<SceneAnnotationTable, 'version' | 'boxes' | 'reviewer' | 'updated_at'>): Promise<boolean> {
  const r = await db.updateTable('scene_annotations').set(set).where('id', '=', id).where('version', '=', version).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A photo's first review; false when another device's first review of it is already there. */
export async function insertAnnotation(db: Db, row: Row<SceneAnnotationTable>): Promise<boolean> {
  const r = await db.insertInto('scene_annotations').values(row).onConflict((oc) => oc.doNothing()).executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function insertCorrection(db: Db, row: Row<AnnotationCorrectionTable>): Promise<void> {
  await db.insertInto('annotation_corrections').values(row).execute();
}

export async function listCorrectionRows(db: Db, sceneId: string, page: Page): Promise<{ count: number; rows: Row<AnnotationCorrectionTable>[] }> {
  const q = db.selectFrom('annotation_corrections').where('scene_id', '=', sceneId);
  const [{ n }] = await q.select((eb) => eb.fn.countAll().as('n')).execute();
  const rows = await q.selectAll().orderBy('data_id').limit(page.limit).offset(page.offset).execute();
  return { count: Number(n), rows };
}

// --- the visit KPI values recognition writes ---

export async function kpiByCid(db: Db, cid: string): Promise<string | undefined> {
  return (await db.selectFrom('kpis').select('id').where('cid', '=', cid).executeTakeFirst())?.id;
}

export async function insertKpi(db: Db, row: Row<KpiTable>): Promise<void> {
  await db.insertInto('kpis').values(row).execute();
}

/** The id of a visit's category-less value of a KPI, if it has one. */
export async function visitKpiValue(db: Db, visitId: string, kpiId: string): Promise<string | undefined> {
  const row = await db.selectFrom('kpi_values').select('id').where('visit_id', '=', visitId).where('kpi_id', '=', kpiId).where('category_id', 'is', null).executeTakeFirst();
  return row?.id;
}

export async function insertKpiValue(db: Db, row: Row<KpiValueTable>): Promise<void> {
  await db.insertInto('kpi_values').values(row).execute();
}

export async function setKpiValue(db: Db, id: string, value: number, at: string): Promise<void> {
  await db.updateTable('kpi_values').set({ value, updated_at: at }).where('id', '=', id).execute();
}

// --- what the scene reads of master data and visits ---

export async function displayExists(db: Db, id: string): Promise<boolean> {
  return (await db.selectFrom('displays').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

export async function visitExists(db: Db, id: string): Promise<boolean> {
  return (await db.selectFrom('visits').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/**
 * Of the records given, those no write of this instance ever recorded in its outbox: on a laptop, the
 * ones that only arrived by sync, made by another device (the outbox is never emptied; a central
 * records every push in it too).
 */
export async function arrivedFromElsewhere(db: Db, entity: SyncEntityName, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('outbox').select('record_id').distinct().where('entity', '=', entity).where('record_id', 'in', ids).execute();
  const here = new Set(rows.map((r) => r.record_id));
  return ids.filter((id) => !here.has(id));
}

/** The visit's review state as stored, or undefined when there is no such visit. */
export async function visitModeration(db: Db, id: string): Promise<string | null | undefined> {
  return (await db.selectFrom('visits').select('moderation').where('id', '=', id).executeTakeFirst())?.moderation;
}

export async function skuExists(db: Db, id: string): Promise<boolean> {
  return (await db.selectFrom('skus').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** Which of these SKU ids exist (in chunks: a review may name thousands). */
export async function existingSkus(db: Db, ids: readonly string[]): Promise<Set<string>> {
  const known = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db.selectFrom('skus').select('id').where('id', 'in', ids.slice(i, i + 500)).execute();
    for (const r of rows) known.add(r.id);
  }
  return known;
}

/** The catalog's EANs (EAN-13 and EAN-8 as stored) to SKU ids: a price tag printing one is that SKU's. */
export async function skuByEan(db: Db): Promise<Array<[string, string]>> {
  const rows = await db.selectFrom('skus').select(['id', 'ean13']).where('ean13', 'is not', null).where('ean13', '!=', '').execute();
  return rows.map((r) => [r.ean13!.trim(), r.id]);
}

export async function skuNames(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('skus').select(['id', 'name']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

export async function mhlRecordsOf(db: Db, mhlId: string) {
  return db.selectFrom('mhl_records').selectAll().where('mhl_id', '=', mhlId).orderBy('data_id').execute();
}

export async function planogramRecordsOf(db: Db, planogramId: string) {
  return db.selectFrom('planogram_records').selectAll().where('planogram_id', '=', planogramId).execute();
}

/** Upload tokens (for image URLs) of these photos. */
export async function uploadTokens(db: Db, ids: readonly string[]): Promise<Map<string, { id: string; token: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('uploads').select(['id', 'token']).where('id', 'in', ids).execute();
  return new Map(rows.map((u) => [u.id, u]));
}

// --- photo quality ---

/** The photos (id, file) of these uploads. */
export async function uploadFiles(db: Db, ids: readonly string[]): Promise<Map<string, { id: string; file: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('uploads').select(['id', 'file']).where('id', 'in', [...ids]).execute();
  return new Map(rows.map((u) => [u.id, u]));
}

/** A visit's scenes in the order they were sent: id, photos, and the analysis once stored. */
export async function visitScenePhotos(db: Db, visitId: string): Promise<Pick<SceneTable, 'id' | 'images' | 'analysis'>[]> {
  return db.selectFrom('scenes').select(['id', 'images', 'analysis']).where('visit_id', '=', visitId).orderBy('data_id').execute();
}

/** Visits with scenes, the one sent to most recently first, at most `limit`. */
export async function visitsWithScenes(db: Db, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('scenes')
    .select('visit_id')
    .select((eb) => eb.fn.max('data_id').as('last'))
    .groupBy('visit_id')
    .orderBy('last', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => r.visit_id);
}

/** Inserts a reference image learnt from a review; false when it is already there (the same correction seen twice). */
export async function insertReviewReference(db: Db, row: Row<SkuImageTable>): Promise<boolean> {
  const r = await db.insertInto('sku_images').values(row).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function uploadExists(db: Db, id: string): Promise<boolean> {
  return (await db.selectFrom('uploads').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/**
 * The shop and day (YYYY-MM-DD, UTC) a visit's prices are read for: its `shop` and the day it started,
 * else the day `fallback` (the scene's creation) names.
 */
export async function visitShopAndDay(db: Db, visitId: string, fallback: string): Promise<{ shop: string | null; day: string }> {
  const v = await db.selectFrom('visits').select(['shop', 'started_date']).where('id', '=', visitId).executeTakeFirst();
  const started = v?.started_date ? new Date(v.started_date) : null;
  const day = started && !Number.isNaN(started.getTime()) ? started.toISOString().slice(0, 10) : fallback.slice(0, 10);
  return { shop: v?.shop ?? null, day };
}

export type PriceTagReviewRow = Pick<PriceTagReviewTable, 'id' | 'scene_id' | 'image_id' | 'version' | 'corrections' | 'reviewer' | 'updated_at'>;

export async function priceTagReviewsOfScene(db: Db, sceneId: string): Promise<PriceTagReviewRow[]> {
  return db.selectFrom('price_tag_reviews').select(['id', 'scene_id', 'image_id', 'version', 'corrections', 'reviewer', 'updated_at']).where('scene_id', '=', sceneId).execute();
}

/** Moves a photo's tag corrections on from `version`; false when another save got there first. */
export async function updatePriceTagReview(db: Db, id: string, version: number, set: Pick<PriceTagReviewTable, 'version' | 'corrections' | 'reviewer' | 'updated_at'>): Promise<boolean> {
  const r = await db.updateTable('price_tag_reviews').set(set).where('id', '=', id).where('version', '=', version).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A photo's first tag corrections; false when another save made the row first. */
export async function insertPriceTagReview(db: Db, row: Row<PriceTagReviewTable>): Promise<boolean> {
  const r = await db.insertInto('price_tag_reviews').values(row).onConflict((oc) => oc.doNothing()).executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
}
