// One recognition job: analyse the scene's photos (unless a previous attempt already stored the
// analysis), then build each of the job's reports. Every report becomes READY, with its webhook
// delivery and its visit KPI values, in one transaction, so a crash between reports loses nothing
// and a restarted job only builds what is left.
import type { Kysely } from 'kysely';
import { displayPlan } from '../../domain/displays.js';
import type { Database } from '../../storage/schema.js';
import type { Analyzer } from '../../recognition/analyzer/scene-analyzer.js';
import { now } from '../../storage/ids.js';
import { write, type WriteContext } from '../../storage/transaction.js';
import type { SceneAnalysis } from '../../recognition/analysis.js';
import type { Identifier } from '../../recognition/identification/identifier.js';
import { loadIdentifier } from '../../recognition/identification/references.js';
import type { SceneImage } from '../../recognition/pipeline.js';
import type { BayHints } from '../../recognition/bay/register.js';
import { buildFacingCount } from '../reports/facing-count.js';
import { buildMhlCompliance } from '../reports/mhl-compliance.js';
import { buildPlanogramCompliance } from '../reports/planogram-compliance.js';
import { buildRealogram } from '../reports/realogram.js';
import { buildShareOfSpace } from '../reports/share-of-space.js';
import { buildPriceCompliance, buildPriceTags, priceSkus } from '../reports/prices.js';
import { pricesOn } from '../../domain/prices.js';
import type { RecognitionKpi } from '../visit-kpis.js';
import { reviewedAnalysis } from '../review.js';
import { presentReport, type ReportObject } from '../recognize.js';
import { getUpload, storeUpload, uploadUrlPath } from '../../domain/uploads.js';
import { keepInBucket, localUploadFile, type PhotoBucket } from '../../domain/upload-cache.js';
import { setVisitKpi } from '../visit-kpis.js';
import { PROJECTED_REPORT_TYPES, projectVisits } from '../../domain/overview/projection.js';
import { enqueueDelivery } from '../webhooks/deliveries.js';
import type { SceneOptions } from '../recognize.js';
import { finishJob, releaseJob, type ClaimedJob } from './queue.js';
import { findScene, mhlRecordsOf, planogramRecordsOf, reportsOfScene, visitShopAndDay, setReportResult, setSceneAnalysis, skuNames as skuNamesOf, unbuiltReports, type SceneRow } from '../queries.js';
import { PRICE_REPORT_TYPES } from '../report-types.js';
import type { PanoramaBody } from '../reports/bodies.js';
import { bayBody } from '../reports/bay.js';
import { sceneFacings } from '../../recognition/bay/facings.js';
import type { PanoramaBay } from '../../recognition/panorama.js';

export interface JobContext {
  db: Kysely<Database>;
  dataDir: string;
  /** The central's bucket: photos another process received are fetched from it (domain/upload-cache.ts). */
  bucket?: PhotoBucket;
  /** Detects and identifies the products of a scene's photos (recognition/analyzer/). */
  /** `readPrices`: whether to look for price tags (only for scenes that ask for a price report). */
  analyze: (images: readonly SceneImage[], identifier: Identifier, hints: BayHints | undefined, readPrices: boolean) => Promise<SceneAnalysis>;
  /** Describes references stored without a descriptor, and stitches panoramas (off the main thread). */
  analyzer: Pick<Analyzer, 'describe' | 'panorama'>;
  /** Renews the lease; throws when the job must stop (shutdown, lease lost). */
  checkpoint: () => Promise<void>;
  /** Base URL for absolute image URLs in report bodies (the server's own address). */
  baseUrl: () => string;
}

/** Input the report cannot be built from (a display without a planogram...): the report ends ERROR. */
export class ReportInputError extends Error {
  override name = 'ReportInputError';
}

type Scene = SceneRow;

async function sceneImages(ctx: JobContext, scene: Scene) {
  const ids = JSON.parse(scene.images) as string[];
  const out = [];
  // Local files: the analysis thread reads them by path.
  for (const id of ids) out.push({ id, path: await localUploadFile(ctx.dataDir, ctx.bucket ?? null, await getUpload(ctx.db, id)) });
  return out;
}

/** The analysis reports are built from: the model's, with a supervisor's corrections laid over it. */
async function analysisOf(ctx: JobContext, scene: Scene): Promise<SceneAnalysis> {
  return reviewedAnalysis(ctx.db, scene.id, await modelAnalysis(ctx, scene));
}

async function modelAnalysis(ctx: JobContext, scene: Scene): Promise<SceneAnalysis> {
  if (scene.analysis) return JSON.parse(scene.analysis) as SceneAnalysis;
  const identifier = await loadIdentifier(ctx.db, ctx.dataDir, ctx.analyzer, ctx.bucket ?? null);
  const options = JSON.parse(scene.options) as SceneOptions;
  // The price stage costs seconds a photo: run only for a scene with a price report. Decided by all of
  // the scene's reports, not this job's, so an analysis redone for one report keeps its tags for the others.
  const readPrices = (await reportsOfScene(ctx.db, scene.id)).some((r) => PRICE_REPORT_TYPES.has(r.report_type));
  const analysis = await ctx.analyze(await sceneImages(ctx, scene), identifier, { stackWidth: options.panorama_stack_width }, readPrices);
  // Through write(): the scene's analysis is part of the record that syncs (a supervisor reviews it).
  await write(ctx.db, async (w) => {
    await setSceneAnalysis(w.trx, scene.id, JSON.stringify(analysis), now());
    w.changed('scene', scene.id);
    // The bay's registration: photos not joined show in the overview's review queue.
    await projectVisits(w.trx, [scene.visit_id]);
  });
  return analysis;
}

async function skuNames(db: Kysely<Database>, analysis: SceneAnalysis): Promise<Map<string, string>> {
  const ids = [...new Set(analysis.images.flatMap((i) => [...i.products, ...(i.price_tags ?? [])].map((p) => p.sku_id)).filter((s): s is string => s !== null))];
  return skuNamesOf(db, ids);
}

interface Built {
  json: unknown;
  kpi?: { kpi: RecognitionKpi; value: number };
}

async function buildReport(ctx: JobContext, scene: Scene, type: string, analysis: () => Promise<SceneAnalysis>): Promise<Built> {
  const db = ctx.db;
  switch (type) {
    case 'FACING_COUNT': {
      const a = await analysis();
      const json = buildFacingCount(a);
      return { json, kpi: { kpi: 'facings', value: json.reduce((s, r) => s + r.count, 0) } };
    }
    case 'REALOGRAM': {
      const a = await analysis();
      return { json: buildRealogram(a, await skuNames(db, a)) };
    }
    case 'SHARE_OF_SPACE':
      return { json: buildShareOfSpace(await analysis()) };
    case 'PRICE_TAGS': {
      const a = await analysis();
      return { json: buildPriceTags(a, await skuNames(db, a)) };
    }
    case 'PRICE_COMPLIANCE': {
      const a = await analysis();
      // The price list as it stands for the visit's shop on the visit's day (domain/prices.ts).
      const { shop, day } = await visitShopAndDay(db, scene.visit_id, scene.created_at);
      const skus = priceSkus(a);
      const json = buildPriceCompliance(a, { shop, day, expected: await pricesOn(db, skus, shop, day), names: await skuNamesOf(db, skus) });
      // No KPI value where the price list prices nothing on the shelf: there is no figure to give.
      return { json, ...(json.compliance === null ? {} : { kpi: { kpi: 'prices' as const, value: Math.round(json.compliance * 10_000) / 100 } }) };
    }
    case 'MHL_COMPLIANCE': {
      if (!scene.display_id) throw new ReportInputError('MHL_COMPLIANCE needs a display.');
      const mhl = (await displayPlan(db, scene.display_id))?.musthavelist;
      if (!mhl) throw new ReportInputError(`Display "${scene.display_id}" has no must-have list.`);
      const rows = await mhlRecordsOf(db, mhl);
      const json = buildMhlCompliance(
        await analysis(),
        mhl,
        rows.map((r) => ({ id: r.id, skus: [r.sku_id, r.sku1_id, r.sku2_id, r.sku3_id, r.sku4_id, r.sku5_id, r.sku6_id] })),
      );
      return { json, kpi: { kpi: 'osa', value: Math.round(json.compliance * 10_000) / 100 } };
    }
    case 'PLANOGRAM_COMPLIANCE': {
      if (!scene.display_id) throw new ReportInputError('PLANOGRAM_COMPLIANCE needs a display.');
      const planogram = (await displayPlan(db, scene.display_id))?.planogram;
      if (!planogram) throw new ReportInputError(`Display "${scene.display_id}" has no planogram.`);
      const rows = await planogramRecordsOf(db, planogram);
      const a = await analysis();
      const names = await skuNames(db, a);
      const json = buildPlanogramCompliance(a, planogram, scene.display_id, rows, (id) => (id === null ? 'unknown product' : (names.get(id) ?? id)));
      return { json, kpi: { kpi: 'planogram', value: Math.round(json.compliance * 10_000) / 100 } };
    }
    case 'PANORAMA': {
      const images = await sceneImages(ctx, scene);
      const options = JSON.parse(scene.options) as SceneOptions;
      // Laid out as the bay was joined, with the merged facings drawn (a scene of several photos).
      const a = images.length > 1 ? await analysis() : null;
      const bay = a?.bay ? panoramaBay(a) : undefined;
      const pano = await ctx.analyzer.panorama(images.map((i) => i.path), { stackWidth: options.panorama_stack_width, stackHeight: options.panorama_stack_height, bay });
      const { row } = await storeUpload(db, ctx.dataDir, pano.jpeg);
      // Served by any process: in the bucket before the report says where it is.
      await keepInBucket(ctx.bucket ?? null, ctx.dataDir, row.file);
      const body = bay && a ? bayBody(a) : null;
      return {
        json: {
          upload: row.id,
          url: ctx.baseUrl() + uploadUrlPath(row),
          width: pano.width,
          height: pano.height,
          images: images.map((i) => i.id),
          stitched: pano.stitched,
          ...(body && bay ? { boxes: bay.boxes.length, bay: body } : {}),
        } satisfies PanoramaBody,
      };
    }
    default:
      throw new ReportInputError(`Unknown report type "${type}".`);
  }
}

/** The bay's layout for the panorama: each photo's transform (in the scene's photo order) and the merged facings. */
function panoramaBay(a: SceneAnalysis): PanoramaBay | undefined {
  const byImage = new Map(a.bay!.photos.map((p) => [p.image, p]));
  const transforms = a.images.map((img) => (byImage.get(img.image)?.joined ? (byImage.get(img.image)!.transform ?? null) : null));
  if (transforms.filter(Boolean).length < 2) return undefined;
  const boxes = sceneFacings(a).filter((f) => f.in_bay).map(({ x1, y1, x2, y2 }) => ({ x1, y1, x2, y2 }));
  return { transforms, widths: a.images.map((i) => i.width), boxes };
}

/** A finished report goes to the scene's webhook, if it names one, in the transaction that finishes it. */
async function queueWebhook(w: WriteContext, scene: Scene, report: ReportObject): Promise<void> {
  if (!scene.webhook) return;
  await enqueueDelivery(w, {
    sceneId: scene.id,
    reportId: report.id,
    url: scene.webhook,
    body: { id: scene.request_id, images: JSON.parse(scene.images), display: scene.display_id, reports: { [report.id]: report } },
  });
}

/**
 * Builds the job's unbuilt reports, each stored in a write of its own, and ends the job `done` in the
 * same write as its last report: whoever sees every report built sees the job done too.
 */
export async function processSceneJob(ctx: JobContext, job: ClaimedJob): Promise<void> {
  const scene = await findScene(ctx.db, job.sceneId);
  const reports = scene ? await unbuiltReports(ctx.db, job.reportIds) : [];
  // Deleted with its visit meanwhile, or every report built before a restart: nothing left to do.
  if (!scene || reports.length === 0) {
    await write(ctx.db, (w) => finishJob(w, job.id));
    return;
  }
  // FACING_COUNT first: it is what the auditor waits for.
  reports.sort((a, b) => Number(b.report_type === 'FACING_COUNT') - Number(a.report_type === 'FACING_COUNT'));
  let cached: Promise<SceneAnalysis> | undefined;
  const analysis = () => (cached ??= analysisOf(ctx, scene));
  for (const [index, report] of reports.entries()) {
    await ctx.checkpoint();
    let built: Built | null = null;
    let error: string | null = null;
    try {
      built = await buildReport(ctx, scene, report.report_type, analysis);
    } catch (e) {
      if (!(e instanceof ReportInputError)) throw e;
      error = e.message;
    }
    await write(ctx.db, async (w) => {
      const at = now();
      const json = built ? JSON.stringify(built.json) : null;
      const status = built ? 'READY' : 'ERROR';
      await setReportResult(w.trx, report.id, { status, json, error }, at);
      w.changed('report', report.id);
      if (built?.kpi) await setVisitKpi(w, scene.visit_id, built.kpi.kpi, built.kpi.value);
      await queueWebhook(w, scene, presentReport({ ...report, status, json, error, updated_at: at }));
      if (index === reports.length - 1) await finishJob(w, job.id);
      // A REALOGRAM or SHARE_OF_SPACE alone changes none of the overview's facts.
      if (PROJECTED_REPORT_TYPES.has(report.report_type) || built?.kpi) await projectVisits(w.trx, [scene.visit_id]);
    });
  }
}

/**
 * Ends the job `failed` for good (`error`), and its unfinished reports as ERROR (`message`), in one
 * write: no one sees a failed job with reports still waiting.
 */
export async function failJob(db: Kysely<Database>, job: ClaimedJob, error: string, message: string): Promise<void> {
  const scene = await findScene(db, job.sceneId);
  const reports = scene ? await unbuiltReports(db, job.reportIds) : [];
  await write(db, async (w) => {
    await releaseJob(w, job.id, error, false);
    if (!scene) return;
    const at = now();
    for (const report of reports) {
      await setReportResult(w.trx, report.id, { status: 'ERROR', error: message }, at);
      w.changed('report', report.id);
      await queueWebhook(w, scene, presentReport({ ...report, status: 'ERROR', error: message, updated_at: at }));
    }
    await projectVisits(w.trx, [scene.visit_id]);
  });
}
