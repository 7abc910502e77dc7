// A supervisor's review of a scene's price tags (issue 45, docs/recognition.md "Price tags"): per
// photo, the tags as the reports show them and the corrections saved, guarded by the photo's version
// like the boxes' review (review.ts). A correction names a tag by its index in the model's analysis and
// gives its price (a decimal string; null: unreadable) or its link (an SKU; null: it prices nothing).
// Corrections live in their own rows (migration 0029), laid over the model's analysis wherever it is
// read (price-corrections.ts, from review.ts's reviewedAnalysis), and every report of the scene is built again.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError, messages } from '../domain/errors.js';
import type { SceneAnalysis } from '../recognition/analysis.js';
import { now } from '../storage/ids.js';
import type { Database } from '../storage/schema.js';
import { write } from '../storage/transaction.js';
import {
  arrivedFromElsewhere,
  existingSkus,
  findScene,
  insertPriceTagReview,
  priceTagReviewsOfScene,
  skuNames,
  updatePriceTagReview,
} from './queries.js';
import type { TagCorrection } from './price-corrections.js';
import { recomputeReports } from './recompute-reports.js';
import { buildPriceTags } from './reports/prices.js';
import type { PriceTagItem } from './reports/bodies.js';
import { reviewedAnalysis } from './review.js';

type Db = Kysely<Database>;

export interface PhotoTagCorrections {
  image: string;
  version: number;
  /** Replaces the photo's corrections. */
  tags: TagCorrection[];
}

export interface PhotoPriceTags {
  image: string;
  width: number;
  height: number;
  version: number;
  reviewer: string | null;
  reviewed_date: string | null;
  /** The tags as the reports show them: the model's with the corrections laid over. */
  tags: PriceTagItem[];
  corrections: TagCorrection[];
}

export interface ScenePriceTags {
  scene: string;
  visit: string;
  images: PhotoPriceTags[];
}

const NOT_RECOGNISED = 'The scene has not been recognised yet: review it once its reports are ready.';

async function recognisedScene(db: Db, sceneId: string) {
  const scene = await findScene(db, sceneId);
  if (!scene) throw new NotFoundError('scene');
  if (scene.analysis === null) throw new ConflictError({ detail: NOT_RECOGNISED });
  return { ...scene, analysis: scene.analysis };
}

export async function readPriceTags(db: Db, sceneId: string): Promise<ScenePriceTags> {
  const scene = await recognisedScene(db, sceneId);
  const analysis = await reviewedAnalysis(db, sceneId, JSON.parse(scene.analysis) as SceneAnalysis);
  const rows = new Map((await priceTagReviewsOfScene(db, sceneId)).map((r) => [r.image_id, r]));
  const skus = analysis.images.flatMap((i) => (i.price_tags ?? []).flatMap((t) => (t.sku_id ? [t.sku_id] : [])));
  const bodies = new Map(buildPriceTags(analysis, await skuNames(db, skus)).map((b) => [b.image, b]));
  const images = (JSON.parse(scene.images) as string[]).map((id) => {
    const body = bodies.get(id);
    const row = rows.get(id);
    return {
      image: id,
      width: body?.width ?? 0,
      height: body?.height ?? 0,
      version: row?.version ?? 0,
      reviewer: row?.reviewer ?? null,
      reviewed_date: row?.updated_at ?? null,
      tags: body?.tags ?? [],
      corrections: row ? (JSON.parse(row.corrections) as TagCorrection[]) : [],
    };
  });
  return { scene: scene.id, visit: scene.visit_id, images };
}

/** Every rule the corrections must pass, before anything is written; field paths name the culprit. */
async function validate(db: Db, images: readonly string[], analysis: SceneAnalysis, photos: readonly PhotoTagCorrections[]): Promise<void> {
  const errors: Record<string, string[]> = {};
  const seen = new Set<string>();
  const skuFields = new Map<string, string>();
  photos.forEach((p, i) => {
    const at = `images[${i}]`;
    if (!images.includes(p.image)) return void (errors[`${at}.image`] = [`${messages.doesNotExist(p.image)} The scene has no such photo.`]);
    if (seen.has(p.image)) return void (errors[`${at}.image`] = [`Photo "${p.image}" is listed twice.`]);
    seen.add(p.image);
    const count = analysis.images.find((a) => a.image === p.image)?.price_tags?.length ?? 0;
    const indexes = new Set<number>();
    p.tags.forEach((c, j) => {
      const tag = `${at}.tags[${j}]`;
      if (c.index >= count) errors[`${tag}.index`] = [`The photo has ${count} price tag${count === 1 ? '' : 's'}: no tag ${c.index}.`];
      else if (indexes.has(c.index)) errors[`${tag}.index`] = [`Tag ${c.index} is corrected twice.`];
      indexes.add(c.index);
      if (c.currency !== undefined && c.price === undefined) errors[`${tag}.currency`] = ['A currency is given with the price it is of.'];
      if (c.sku_id !== undefined && c.sku_id !== null) skuFields.set(c.sku_id, `${tag}.sku_id`);
    });
  });
  const known = await existingSkus(db, [...skuFields.keys()]);
  for (const [sku, field] of skuFields) if (!known.has(sku)) errors[field] = [messages.doesNotExist(sku)];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

function stale(image: string, sent: number, current: number): ConflictError {
  return new ConflictError({
    detail: `The price tags of photo "${image}" were saved by another reviewer since you read them (you sent version ${sent}, it is now version ${current}). Nothing was changed: read them again and reapply your corrections.`,
    image,
    version: current,
  });
}

/** The row id of a photo's tag review: the same on every device, as the boxes' (review.ts). */
function reviewId(sceneId: string, imageId: string): string {
  return 'ptr-' + createHash('sha256').update(`${sceneId}\n${imageId}`).digest('hex').slice(0, 40);
}

export const TAGS_REVIEWED_ELSEWHERE =
  "These price tags were reviewed on another laptop (a supervisor's) and the review reached this one by sync: they are read-only here.";

/** Replaces the tag corrections of the photos sent, all or nothing; answers the tags and the new reports. */
export async function savePriceTags(db: Db, sceneId: string, photos: readonly PhotoTagCorrections[], reviewer: string | null): Promise<ScenePriceTags & { reports: Record<string, string> }> {
  const scene = await recognisedScene(db, sceneId);
  const analysis = JSON.parse(scene.analysis) as SceneAnalysis;
  await validate(db, JSON.parse(scene.images) as string[], analysis, photos);
  const reports = await write(db, async (ctx) => {
    const at = now();
    const rows = new Map((await priceTagReviewsOfScene(ctx.trx, sceneId)).map((r) => [r.image_id, r]));
    for (const p of photos) {
      const current = rows.get(p.image)?.version ?? 0;
      if (current !== p.version) throw stale(p.image, p.version, current);
    }
    const theirs = await arrivedFromElsewhere(ctx.trx, 'price_tag_review', photos.flatMap((p) => rows.get(p.image)?.id ?? []));
    if (theirs.length > 0) throw new ForbiddenError(TAGS_REVIEWED_ELSEWHERE);
    for (const p of photos) {
      const row = rows.get(p.image);
      // Only what a correction changes is kept (a field left out follows the model), with the box of
      // the tag it was made on (price-corrections.ts).
      const modelTags = analysis.images.find((a) => a.image === p.image)?.price_tags ?? [];
      const kept = p.tags
        .filter((c) => c.price !== undefined || c.sku_id !== undefined)
        .map(({ index, price, currency, sku_id }) => {
          const { x1, y1, x2, y2 } = modelTags[index];
          return { index, price, currency, sku_id, box: { x1, y1, x2, y2 } };
        });
      const corrections = JSON.stringify(kept);
      const version = p.version + 1;
      let id: string;
      if (row) {
        id = row.id;
        if (!(await updatePriceTagReview(ctx.trx, row.id, p.version, { version, corrections, reviewer, updated_at: at }))) throw stale(p.image, p.version, version);
      } else {
        id = reviewId(sceneId, p.image);
        const inserted = await insertPriceTagReview(ctx.trx, { id, scene_id: sceneId, image_id: p.image, version, corrections, reviewer, created_at: at, updated_at: at });
        if (!inserted) throw stale(p.image, p.version, 1);
      }
      ctx.changed('price_tag_review', id);
    }
    return recomputeReports(ctx, sceneId, scene.visit_id, at);
  });
  return { ...(await readPriceTags(db, sceneId)), reports };
}
