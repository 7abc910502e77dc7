// Supervisors' review of recognition results (docs/recognition.md, "Review"). A scene's
// photos are reviewed one by one: the reviewer reads the boxes (the model's, or the last saved
// review's) with the photo's version and sends the corrected list back with that version. A save
// whose version is no longer current changes nothing (409), so two reviewers never overwrite each
// other silently. Each save keeps an audit row, recomputes every report type of the scene as new
// reports (previous_report = the replaced one, re-delivered to the webhook by the job) and moves the
// visit's moderation state.
//
// The model's analysis stays on the scene as the detector and identifier left it; the reviewed boxes
// live in their own rows and are laid over it wherever the analysis is read (jobs, visit scenes,
// export). That keeps a review made on a supervisor's laptop a record of its own that syncs, instead of
// a change to the auditor's scene that the central would refuse.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError, messages } from '../domain/errors.js';
import { setVisitModeration, type Moderation } from '../domain/visits.js';
import { projectVisits } from '../domain/overview/projection.js';
import { newId, now } from '../storage/ids.js';
import type { Database, SceneTable } from '../storage/schema.js';
import { write, type WriteContext } from '../storage/transaction.js';
import type { ImageAnalysis, SceneAnalysis } from '../recognition/analysis.js';
import { recomputeReports } from './recompute-reports.js';
import { withPriceReview } from './price-corrections.js';
import { learnFromCorrection } from './learn.js';
import { groupIntoShelves } from '../recognition/shelves.js';
import { mergeScene } from '../recognition/bay/facings.js';
import type { ReviewBay } from '../schemas/review.js';
import {
  annotationsOfScene,
  arrivedFromElsewhere,
  countReviewedPhotos,
  existingSkus,
  findScene,
  insertAnnotation,
  insertCorrection,
  listCorrectionRows,
  priceTagReviewsOfScene,
  sceneExists,
  scenePhotosOfVisit,
  updateAnnotation,
  visitModeration,
  type AnnotationRow,
} from './queries.js';

/** A box as stored and answered: REALOGRAM convention (x, y the centre), displayed pixels. */
export interface StoredBox {
  id: string;
  x: number;
  y: number;
  w: number;
  h: number;
  sku_id: string | null;
  score: number;
  sku_score: number;
  source: 'model' | 'reviewer';
  unknown_on_purpose: boolean;
  /** The identifier's best SKUs for this crop, best first (model boxes; kept while the box is not moved). */
  suggestions?: { sku_id: string; score: number }[];
}

export interface BoxInput {
  id?: string;
  x: number;
  y: number;
  w: number;
  h: number;
  sku_id: string | null;
  unknown_on_purpose?: boolean;
}

export interface ImageCorrection {
  image: string;
  version: number;
  boxes: BoxInput[];
}

export interface ImageAnnotations {
  image: string;
  width: number;
  height: number;
  version: number;
  reviewer: string | null;
  reviewed_date: string | null;
  boxes: StoredBox[];
}

type BoxRef = ReviewBay['passed'][number];

export interface SceneAnnotations {
  scene: string;
  visit: string;
  reviewed: boolean;
  images: ImageAnnotations[];
  bay: ReviewBay | null;
}

type Db = Kysely<Database>;

// A box may reach half a pixel past the edge: model boxes are clipped to the photo and come back
// through centre/size arithmetic.
const EDGE_TOLERANCE = 0.5;

/** The model's boxes of one photo, with ids stable for as long as the analysis is. */
export function modelBoxes(img: ImageAnalysis): StoredBox[] {
  return img.products.map((p, i) => ({
    id: `m${i}`,
    x: (p.x1 + p.x2) / 2,
    y: (p.y1 + p.y2) / 2,
    w: p.x2 - p.x1,
    h: p.y2 - p.y1,
    sku_id: p.sku_id,
    score: p.score,
    sku_score: p.sku_score,
    source: 'model',
    unknown_on_purpose: false,
    suggestions: p.suggestions ?? [],
  }));
}

/** One photo's analysis rebuilt from reviewed boxes: shelves and positions found again. */
function reviewedImage(img: ImageAnalysis, rackIndex: number, boxes: readonly StoredBox[]): ImageAnalysis {
  const items = boxes.map((b) => ({ x1: b.x - b.w / 2, y1: b.y - b.h / 2, x2: b.x + b.w / 2, y2: b.y + b.h / 2, score: b.score, sku_id: b.sku_id, sku_score: b.sku_score, reviewed: b.source === 'reviewer' }));
  const layout = groupIntoShelves(items);
  const products = layout.placed.map((p) => ({ ...p.item, rack_index: rackIndex, shelf_index: p.shelf, position: p.position }));
  // A price tag prices the facing it was linked to: its new place in the list, and the SKU the reviewer
  // gave it (a model box keeps its id, m<index>, through the review).
  const placedAt = new Map(layout.placed.map((p, k) => [boxes[items.indexOf(p.item)].id, k]));
  const price_tags = img.price_tags?.map((tag) => {
    if (tag.product_index === null) return tag;
    const k = placedAt.get(`m${tag.product_index}`);
    return k === undefined ? { ...tag, product_index: null } : { ...tag, product_index: k, sku_id: products[k].sku_id, shelf_index: products[k].shelf_index };
  });
  return { ...img, products, shelves: layout.shelves, ...(price_tags ? { price_tags } : {}) };
}

/** The scene's analysis with every reviewed photo's boxes in place of the model's. */
export function withReview(analysis: SceneAnalysis, rows: readonly Pick<AnnotationRow, 'image_id' | 'boxes'>[]): SceneAnalysis {
  if (rows.length === 0) return analysis;
  const byImage = new Map(rows.map((r) => [r.image_id, JSON.parse(r.boxes) as StoredBox[]]));
  return {
    ...analysis,
    images: analysis.images.map((img, i) => {
      const boxes = byImage.get(img.image);
      return boxes ? reviewedImage(img, i, boxes) : img;
    }),
  };
}

/** The analysis to build reports and views from: the model's, corrected by the review (boxes, then price tags). */
export async function reviewedAnalysis(db: Db, sceneId: string, analysis: SceneAnalysis): Promise<SceneAnalysis> {
  return withPriceReview(withReview(analysis, await annotationsOfScene(db, sceneId)), await priceTagReviewsOfScene(db, sceneId));
}

/** The row id of a photo's review: the same on every device, so two offline reviews of one photo meet as one record. */
function annotationId(sceneId: string, imageId: string): string {
  return 'ann-' + createHash('sha256').update(`${sceneId}\n${imageId}`).digest('hex').slice(0, 40);
}

export const REVIEWED_ELSEWHERE =
  "This photo was reviewed on another laptop (a supervisor's) and the review reached this one by sync: it is read-only here.";

const NOT_RECOGNISED = 'The scene has not been recognised yet: review it once its reports are ready.';

type SceneRow = Pick<SceneTable, 'id' | 'visit_id' | 'images' | 'analysis'>;

function present(scene: SceneRow, analysis: SceneAnalysis, rows: readonly AnnotationRow[]): SceneAnnotations {
  const byImage = new Map(rows.map((r) => [r.image_id, r]));
  const ids = JSON.parse(scene.images) as string[];
  const images = ids.map((id) => {
    const img = analysis.images.find((i) => i.image === id);
    const row = byImage.get(id);
    return {
      image: id,
      width: img?.width ?? 0,
      height: img?.height ?? 0,
      version: row?.version ?? 0,
      reviewer: row?.reviewer ?? null,
      reviewed_date: row?.updated_at ?? null,
      boxes: row ? (JSON.parse(row.boxes) as StoredBox[]) : img ? modelBoxes(img) : [],
    };
  });
  return { scene: scene.id, visit: scene.visit_id, reviewed: images.every((i) => i.version > 0), images, bay: reviewBay(analysis, images) };
}

const r1 = (v: number) => Math.round(v * 10) / 10;

/**
 * The scene's bay with its facings merged from each photo's boxes as they stand (bay/facings.ts, as the
 * reports merge them), each view named by its box id: the review screen marks a facing in every photo
 * that shows it and sends a correction of it to each of them. Null without a bay of two photos or more.
 */
export function reviewBay(analysis: SceneAnalysis, images: readonly ImageAnnotations[]): ReviewBay | null {
  const bay = analysis.bay;
  if (!bay || bay.photos.filter((p) => p.joined && p.transform).length < 2) return null;
  const byImage = new Map(images.map((i) => [i.image, i.boxes]));
  // Products in the stored boxes' order, so a view's index is its box's.
  const boxed: SceneAnalysis = {
    ...analysis,
    images: analysis.images.map((img, rack) => ({
      ...img,
      products: (byImage.get(img.image) ?? []).map((b) => ({
        x1: b.x - b.w / 2, y1: b.y - b.h / 2, x2: b.x + b.w / 2, y2: b.y + b.h / 2,
        score: b.score, sku_id: b.sku_id, sku_score: b.sku_score, reviewed: b.source === 'reviewer',
        // The identifier's candidates: a facing its photos left unknown takes the one they agree on (bay/facings.ts).
        ...(b.suggestions ? { suggestions: b.suggestions } : {}),
        rack_index: rack, shelf_index: 0, position: 0,
      })),
    })),
  };
  const ref = (v: { image: string; index: number }): BoxRef => ({ image: v.image, box: byImage.get(v.image)![v.index].id });
  const { facings, passed } = mergeScene(boxed);
  return {
    width: bay.width,
    height: bay.height,
    photos: bay.photos.map((p) => ({ image: p.image, joined: p.joined, transform: p.transform, message: p.message })),
    passed: passed.map(ref),
    facings: facings
      .filter((f) => f.in_bay)
      .map((f) => ({ x: r1((f.x1 + f.x2) / 2), y: r1((f.y1 + f.y2) / 2), w: r1(f.x2 - f.x1), h: r1(f.y2 - f.y1), sku_id: f.sku_id, counted: ref(f.views[0]), views: f.views.map(ref) })),
  };
}

async function sceneRow(db: Db, sceneId: string): Promise<SceneRow & { analysis: string }> {
  const scene = await findScene(db, sceneId);
  if (!scene) throw new NotFoundError('scene');
  if (scene.analysis === null) throw new ConflictError({ detail: NOT_RECOGNISED });
  return scene as SceneRow & { analysis: string };
}

export async function readAnnotations(db: Db, sceneId: string): Promise<SceneAnnotations> {
  const scene = await sceneRow(db, sceneId);
  return present(scene, JSON.parse(scene.analysis) as SceneAnalysis, await annotationsOfScene(db, sceneId));
}

const same = (a: number, b: number) => Math.abs(a - b) < 1e-6;

/** The stored form of a corrected list: boxes left as they were keep their source and scores. */
function correctedBoxes(input: readonly BoxInput[], current: readonly StoredBox[]): StoredBox[] {
  const byId = new Map(current.map((b) => [b.id, b]));
  return input.map((b) => {
    const unknownOnPurpose = b.sku_id === null && b.unknown_on_purpose === true;
    const was = b.id === undefined ? undefined : byId.get(b.id);
    if (was && same(was.x, b.x) && same(was.y, b.y) && same(was.w, b.w) && same(was.h, b.h) && was.sku_id === b.sku_id && was.unknown_on_purpose === unknownOnPurpose) {
      return was;
    }
    const geometryKept = was !== undefined && same(was.x, b.x) && same(was.y, b.y) && same(was.w, b.w) && same(was.h, b.h);
    return {
      id: b.id ?? newId(),
      x: b.x,
      y: b.y,
      w: b.w,
      h: b.h,
      sku_id: b.sku_id,
      // A box the reviewer only relabelled keeps the detector's confidence; one drawn or moved is theirs.
      score: geometryKept ? was.score : 1,
      sku_score: b.sku_id === null ? 0 : 1,
      source: 'reviewer',
      unknown_on_purpose: unknownOnPurpose,
      // Relabelled in place: the crop is the same, so are the identifier's suggestions for it.
      ...(geometryKept && was.suggestions ? { suggestions: was.suggestions } : {}),
    };
  });
}

/** Every rule a correction must pass, checked before anything is written; field paths name the culprit. */
async function validate(db: Db, scene: SceneRow, analysis: SceneAnalysis, corrections: readonly ImageCorrection[]): Promise<void> {
  const errors: Record<string, string[]> = {};
  const sceneImages = new Set(JSON.parse(scene.images) as string[]);
  const seen = new Set<string>();
  const skuIds = new Map<string, string>();
  corrections.forEach((c, i) => {
    const at = `images[${i}]`;
    if (!sceneImages.has(c.image)) return void (errors[`${at}.image`] = [`${messages.doesNotExist(c.image)} The scene has no such photo.`]);
    if (seen.has(c.image)) return void (errors[`${at}.image`] = [`Photo "${c.image}" is listed twice.`]);
    seen.add(c.image);
    const img = analysis.images.find((a) => a.image === c.image);
    const width = img?.width ?? 0;
    const height = img?.height ?? 0;
    const ids = new Set<string>();
    c.boxes.forEach((b, j) => {
      const box = `${at}.boxes[${j}]`;
      if (b.id !== undefined) {
        if (ids.has(b.id)) errors[`${box}.id`] = [`Box id "${b.id}" is used twice in this photo.`];
        ids.add(b.id);
      }
      if (!(b.w > 0) || !(b.h > 0)) {
        errors[box] = [`A box needs a positive width and height (got w=${b.w}, h=${b.h}).`];
      } else if (b.x - b.w / 2 < -EDGE_TOLERANCE || b.y - b.h / 2 < -EDGE_TOLERANCE || b.x + b.w / 2 > width + EDGE_TOLERANCE || b.y + b.h / 2 > height + EDGE_TOLERANCE) {
        errors[box] = [`The box (centre ${b.x}, ${b.y}, size ${b.w} x ${b.h}) lies outside the ${width} x ${height} photo.`];
      }
      if (b.sku_id !== null) skuIds.set(b.sku_id, `${box}.sku_id`);
    });
  });
  const known = await existingSkus(db, [...skuIds.keys()]);
  for (const [sku, field] of skuIds) if (!known.has(sku)) errors[field] = [messages.doesNotExist(sku)];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/**
 * A photo's version no longer being the one read is a conflict. Checked again by the guarded write
 * itself, so two saves racing through this check still cannot both win.
 */
function stale(image: string, sent: number, current: number): ConflictError {
  return new ConflictError({
    detail: `Photo "${image}" was saved by another reviewer since you read it (you sent version ${sent}, it is now version ${current}). Nothing was changed: read the annotations again and reapply your corrections.`,
    image,
    version: current,
  });
}

/**
 * Replaces the boxes of the photos sent, all or nothing; answers the scene's annotations and the new
 * reports. With `learn`, boxes given an SKU become references of it in the same transaction
 * (scenes/learn.ts): where master data is written here, not on a laptop that syncs, whose corrections
 * the central learns from when they arrive.
 */
export async function saveAnnotations(
  db: Db,
  sceneId: string,
  corrections: readonly ImageCorrection[],
  reviewer: string | null,
  options: { learn?: boolean } = {},
): Promise<SceneAnnotations & { reports: Record<string, string> }> {
  const scene = await sceneRow(db, sceneId);
  const analysis = JSON.parse(scene.analysis) as SceneAnalysis;
  await validate(db, scene, analysis, corrections);
  return write(db, async (ctx) => {
    const trx = ctx.trx;
    const at = now();
    const rows = await annotationsOfScene(trx, sceneId);
    const byImage = new Map(rows.map((r) => [r.image_id, r]));
    for (const c of corrections) {
      const row = byImage.get(c.image);
      if ((row?.version ?? 0) !== c.version) throw stale(c.image, c.version, row?.version ?? 0);
    }
    // A review made on another laptop that reached this one by sync stays that laptop's: the central
    // would refuse a change to it from here, and the correction would be lost.
    const theirs = await arrivedFromElsewhere(trx, 'scene_annotation', corrections.flatMap((c) => byImage.get(c.image)?.id ?? []));
    if (theirs.length > 0) throw new ForbiddenError(REVIEWED_ELSEWHERE);
    for (const c of corrections) {
      const row = byImage.get(c.image);
      const img = analysis.images.find((a) => a.image === c.image)!;
      const before = row ? (JSON.parse(row.boxes) as StoredBox[]) : modelBoxes(img);
      const after = correctedBoxes(c.boxes, before);
      const version = c.version + 1;
      const boxes = JSON.stringify(after);
      let id: string;
      if (row) {
        id = row.id;
        if (!(await updateAnnotation(trx, row.id, c.version, { version, boxes, reviewer, updated_at: at }))) throw stale(c.image, c.version, c.version + 1);
      } else {
        id = annotationId(sceneId, c.image);
        const inserted = await insertAnnotation(trx, { id, scene_id: sceneId, image_id: c.image, version, boxes, reviewer, created_at: at, updated_at: at });
        if (!inserted) throw stale(c.image, c.version, 1);
      }
      ctx.changed('scene_annotation', id);
      const correction = { id: newId(), scene_id: sceneId, image_id: c.image, version, reviewer, before: JSON.stringify(before), after: boxes, created_at: at, updated_at: at };
      await insertCorrection(trx, correction);
      ctx.changed('annotation_correction', correction.id);
      if (options.learn) await learnFromCorrection(ctx, correction);
    }
    const reports = await recomputeReports(ctx, sceneId, scene.visit_id, at);
    await refreshModeration(ctx, scene.visit_id);
    await projectVisits(trx, [scene.visit_id]);
    const saved = await annotationsOfScene(trx, sceneId);
    return { ...present(scene, analysis, saved), reports };
  });
}

/**
 * The visit's review state from its scenes: `reviewed` when every photo of every scene has been saved
 * by a reviewer, `in_review` when some have, `unreviewed` otherwise (also a visit without scenes).
 */
export async function refreshModeration(ctx: WriteContext, visitId: string): Promise<Moderation> {
  const { state } = await moderationOf(ctx.trx, visitId);
  await setVisitModeration(ctx, visitId, state);
  return state;
}

/** The review state a visit's scenes and their reviews give, on this instance. */
async function moderationOf(db: Db, visitId: string): Promise<{ state: Moderation; reviewed: number }> {
  const scenes = await scenePhotosOfVisit(db, visitId);
  let photos = 0;
  for (const s of scenes) photos += (JSON.parse(s.images) as string[]).length;
  const reviewed = await countReviewedPhotos(db, scenes.map((s) => s.id));
  return { state: reviewed === 0 ? 'unreviewed' : reviewed >= photos ? 'reviewed' : 'in_review', reviewed };
}

/** A pulled change, as much of it as the review state needs. */
export interface PulledChange {
  entity: string;
  id: string;
  row: Record<string, unknown> | null;
}

/**
 * After a pull: each visit whose scenes or reviews arrived, and of which a photo has been reviewed,
 * gets its review state again from what this instance now holds. A review saved on one laptop while
 * the visit's owner added a scene on another thus ends `in_review` on both once both have everything,
 * instead of whichever state was pushed last. A state already right writes nothing, so nothing echoes.
 */
export async function refreshPulledModeration(db: Db, changes: readonly PulledChange[]): Promise<void> {
  const visits = new Set<string>();
  const scenes = new Set<string>();
  for (const c of changes) {
    if (c.entity === 'visit') visits.add(c.id);
    else if (c.entity === 'scene' && typeof c.row?.visit_id === 'string') visits.add(c.row.visit_id);
    else if (c.entity === 'scene_annotation' && typeof c.row?.scene_id === 'string') scenes.add(c.row.scene_id);
  }
  for (const id of scenes) {
    const scene = await findScene(db, id);
    if (scene) visits.add(scene.visit_id);
  }
  if (visits.size === 0) return;
  await write(db, async (ctx) => {
    const changed: string[] = [];
    for (const visit of visits) {
      const current = await visitModeration(ctx.trx, visit);
      if (current === undefined) continue;
      const { state, reviewed } = await moderationOf(ctx.trx, visit);
      // A visit nobody reviewed keeps the state it was given (a new visit has none).
      if (reviewed > 0 && state !== current) {
        await setVisitModeration(ctx, visit, state);
        changed.push(visit);
      }
    }
    await projectVisits(ctx.trx, changed);
  });
}

export interface CorrectionRecord {
  id: string;
  scene: string;
  image: string;
  version: number;
  reviewer: string | null;
  created_date: string;
  before: StoredBox[];
  after: StoredBox[];
}

/** The audit of a scene's corrections, oldest first. */
export async function listCorrections(db: Db, sceneId: string, page: { limit: number; offset: number }): Promise<{ count: number; results: CorrectionRecord[] }> {
  if (!(await sceneExists(db, sceneId))) throw new NotFoundError('scene');
  const { count, rows } = await listCorrectionRows(db, sceneId, page);
  return {
    count,
    results: rows.map((row) => ({
      id: row.id,
      scene: row.scene_id,
      image: row.image_id,
      version: row.version,
      reviewer: row.reviewer,
      created_date: row.created_at,
      before: JSON.parse(row.before) as StoredBox[],
      after: JSON.parse(row.after) as StoredBox[],
    })),
  };
}
