// POST /recognize as plain functions: validate the request against the database, then create (in one
// transaction) the visit when none is named, the scene, one NOT_READY report per requested type and
// the job that builds them. Reading reports and asking for their recomputation live here too.
// metadata.agent_id creates or renames the agent and links the scene to it; agent_name without an
// agent_id has no agent to name and only fills a new visit's current_agent_name.
import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import { ensureAgent } from '../domain/agents.js';
import { ForbiddenError, NotFoundError, ValidationError, messages } from '../domain/errors.js';
import { createVisit, touchVisit } from '../domain/visits.js';
import { newId, now } from '../storage/ids.js';
import type { Database, ReportTable } from '../storage/schema.js';
import { write, type WriteContext } from '../storage/transaction.js';
import { arrivedFromElsewhere, displayExists, findReport, insertReport, insertScene, latestReportOnDisplay, listReportRows, markReportsNotReady, reportScenes, setSceneAnalysis, visitExists, type ReportFilters } from './queries.js';
import { enqueueJob } from './jobs/queue.js';
import { DEFAULT_REPORT_TYPES, NEEDS_DISPLAY, REPORT_TYPES, reportTypeOf } from './report-types.js';
import { refreshModeration } from './review.js';
import { missingUploads } from '../domain/uploads.js';
import { projectVisits, visitsOfRecords } from '../domain/overview/projection.js';
import type { RecognizeBody, RecognizeCreated, ReportItem } from '../schemas/recognition.js';

/** The request and answer of POST /recognize: the schemas that validate and document them. */
export type RecognizeInput = Static<typeof RecognizeBody>;
// The photos' quality is added by the route, after the scene's transaction (it reads the visit's other photos).
export type RecognizeResult = Omit<Static<typeof RecognizeCreated>, 'quality'>;

export interface SceneOptions {
  panorama_stack_width: number | null;
  panorama_stack_height: number | null;
  country_code: string | null;
  retail_chain: string | null;
  datetime: string | null;
  metadata: Record<string, unknown> | null;
}

/**
 * The photos of one scene are joined into one bay, every pair matched (recognition/bay/register.ts):
 * a bay takes 2 to 8 photos, and the pairs grow with the square of the photos.
 */
export const MAX_SCENE_PHOTOS = 16;

function firstDisplay(display: RecognizeInput['display']): string | null {
  if (display === undefined || display === null) return null;
  if (Array.isArray(display)) return display[0] ?? null;
  return display === '' ? null : display;
}

export async function recognize(db: Kysely<Database>, input: RecognizeInput): Promise<RecognizeResult> {
  const images = [...new Set(input.images ?? [])];
  const types = [...new Set(input.report_types && input.report_types.length > 0 ? input.report_types : DEFAULT_REPORT_TYPES)];
  const display = firstDisplay(input.display);
  const errors: Record<string, string[]> = {};
  if (images.length === 0) errors.images = ['This list may not be empty.'];
  else if (images.length > MAX_SCENE_PHOTOS) errors.images = [`A scene takes at most ${MAX_SCENE_PHOTOS} photos (one bay); this one has ${images.length}: send the rest as another scene.`];
  const missing = await missingUploads(db, images);
  if (missing.length > 0) errors.images = [messages.doesNotExist(missing[0])];
  const unknownTypes = types.filter((t) => !(REPORT_TYPES as readonly string[]).includes(t));
  if (unknownTypes.length > 0) errors.report_types = [`"${unknownTypes[0]}" is not a valid choice. Choices: ${REPORT_TYPES.join(', ')}.`];
  if (display !== null) {
    if (!(await displayExists(db, display))) errors.display = [messages.doesNotExist(display)];
  } else {
    const needing = types.filter((t) => NEEDS_DISPLAY.has(t));
    if (needing.length > 0) errors.display = [`A display is required for ${needing.join(' and ')}.`];
  }
  if (input.visit !== undefined) {
    if (!(await visitExists(db, input.visit))) errors.visit = [messages.doesNotExist(input.visit)];
  }
  if (input.datetime !== undefined && Number.isNaN(Date.parse(input.datetime))) {
    errors.datetime = ['Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].'];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);

  const options: SceneOptions = {
    panorama_stack_width: input.panorama_stack_width ?? null,
    panorama_stack_height: input.panorama_stack_height ?? null,
    country_code: input.country_code ?? input.counry_code ?? null,
    retail_chain: input.retail_chain ?? null,
    datetime: input.datetime ? new Date(input.datetime).toISOString() : null,
    metadata: input.metadata ?? null,
  };
  const agentId = input.metadata?.agent_id ?? null;
  const agentName = input.metadata?.agent_name ?? null;
  return write(db, async (ctx) => {
    if (agentId !== null) await ensureAgent(ctx, agentId, agentName);
    let visitId = input.visit;
    if (visitId === undefined) {
      const visit = await createVisit(ctx, {
        agent: agentId,
        current_agent_name: agentName,
        started_date: options.datetime ?? now(),
      });
      visitId = visit.id as string;
    } else {
      await touchVisit(ctx, visitId);
    }
    const at = now();
    const scene = { id: newId(), request_id: newId() };
    await insertScene(ctx.trx, {
      ...scene,
      visit_id: visitId,
      display_id: display,
      images: JSON.stringify(images),
      options: JSON.stringify(options),
      webhook: input.webhook ?? null,
      agent_id: agentId,
      analysis: null,
      created_at: at,
      updated_at: at,
    });
    ctx.changed('scene', scene.id);
    const reports: Record<string, string> = {};
    for (const report_type of types) {
      const id = newId();
      // The report it follows is looked up once, at creation, so the link stays put when later scenes
      // arrive, a report is recomputed or the display is unlinked.
      const previous_report = display === null ? null : await latestReportOnDisplay(ctx.trx, display, report_type, at);
      await insertReport(ctx.trx, { id, scene_id: scene.id, visit_id: visitId, report_type, status: 'NOT_READY', json: null, error: null, previous_report, created_at: at, updated_at: at });
      ctx.changed('report', id);
      reports[report_type] = id;
    }
    await enqueueJob(ctx, scene.id, Object.values(reports));
    // A new scene is unreviewed: the visit is so too, or back in review if it had been reviewed.
    await refreshModeration(ctx, visitId);
    await projectVisits(ctx.trx, [visitId]);
    return { id: scene.request_id, images, display: input.display ?? null, scene: scene.id, visit: visitId, reports };
  });
}

/** A report as GET /reports/{id}/ and the webhooks show it. */
export type ReportObject = Static<typeof ReportItem>;

type ReportRow = Pick<ReportTable, 'id' | 'status' | 'report_type' | 'created_at' | 'updated_at' | 'visit_id' | 'scene_id' | 'previous_report' | 'json' | 'error'>;

export function presentReport(r: ReportRow): ReportObject {
  return {
    id: r.id,
    status: r.status,
    report_type: reportTypeOf(r.report_type),
    created_date: r.created_at,
    updated_date: r.updated_at,
    visit: r.visit_id,
    scene: r.scene_id,
    previous_report: r.previous_report,
    json: r.json === null ? null : JSON.parse(r.json),
    error: r.error,
  };
}

export type { ReportFilters };

export async function listReports(db: Kysely<Database>, page: { limit: number; offset: number }, f: ReportFilters): Promise<{ count: number; results: ReportObject[] }> {
  const { count, rows } = await listReportRows(db, page, f);
  return { count, results: rows.map(presentReport) };
}

export async function getReport(db: Kysely<Database>, id: string): Promise<ReportObject> {
  const row = await findReport(db, id);
  if (!row) throw new NotFoundError('report');
  return presentReport(row);
}

/** Marks the reports NOT_READY again and queues their recomputation (one job per scene). */
export async function forceUpdate(db: Kysely<Database>, ids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) throw new ValidationError({ reports: ['This list may not be empty.'] });
  return write(db, async (ctx: WriteContext) => {
    const rows = await reportScenes(ctx.trx, unique);
    const have = new Set(rows.map((r) => r.id));
    const missing = unique.find((id) => !have.has(id));
    if (missing !== undefined) throw new ValidationError({ reports: [messages.doesNotExist(missing)] });
    // A report another laptop made (a supervisor's review) and sync brought here is that laptop's.
    const theirs = await arrivedFromElsewhere(ctx.trx, 'report', unique);
    if (theirs.length > 0) {
      throw new ForbiddenError(`Report "${theirs[0]}" was made on another laptop (a supervisor's review) and reached this one by sync: it is read-only here. Recompute this laptop's own reports instead.`);
    }
    const at = now();
    await markReportsNotReady(ctx.trx, unique, at);
    const byScene = new Map<string, string[]>();
    for (const r of rows) {
      ctx.changed('report', r.id);
      byScene.set(r.scene_id, [...(byScene.get(r.scene_id) ?? []), r.id]);
    }
    for (const [sceneId, reportIds] of byScene) {
      // Detect and identify again: the catalog's reference images may have changed since.
      await setSceneAnalysis(ctx.trx, sceneId, null, at);
      ctx.changed('scene', sceneId);
      await enqueueJob(ctx, sceneId, reportIds);
    }
    // Reports NOT_READY again: their facings leave the overview until recomputed.
    await projectVisits(ctx.trx, await visitsOfRecords(ctx.trx, 'report', unique));
    return unique;
  });
}
