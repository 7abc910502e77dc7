// The quality of stored photos: each upload's pixel measures (measured once, kept in photo_measures),
// the thresholds in force (photo_quality_settings over the defaults), and a photo's judged quality.
// Judging happens when asked, so new thresholds apply to photos measured before.
import { access } from 'node:fs/promises';
import type { Static } from 'typebox';
import type { Kysely } from 'kysely';
import { ValidationError } from './errors.js';
import {
  DEFAULT_THRESHOLDS,
  THRESHOLD_RANGES,
  estimateOverlap,
  judgeBoxes,
  judgeDuplicate,
  judgeOverlap,
  judgePixels,
  measurePhoto,
  summarise,
  type Box,
  type PhotoQuality,
  type PixelMeasures,
  type QualityIssue,
  type QualityThresholds,
} from './photo-checks.js';
import type { UploadRow } from './uploads.js';
import { BucketUnavailableError } from '../storage/object-store.js';
import { localUploadFile, type PhotoBucket } from './upload-cache.js';
import type { ScenePhotoQuality as ScenePhotoQualitySchema } from '../schemas/quality.js';
import { now } from '../storage/ids.js';
import type { Database } from '../storage/schema.js';
import { write } from '../storage/transaction.js';
import { judgeFlagged, projectVisits, visitsOfPhoto } from './overview/projection.js';

type Db = Kysely<Database>;

const NAMES = Object.keys(DEFAULT_THRESHOLDS) as (keyof QualityThresholds)[];

export async function readThresholds(db: Db): Promise<QualityThresholds> {
  const rows = await db.selectFrom('photo_quality_settings').selectAll().execute();
  const out = { ...DEFAULT_THRESHOLDS };
  for (const r of rows) if ((NAMES as string[]).includes(r.name)) out[r.name as keyof QualityThresholds] = Number(r.value);
  return out;
}

/**
 * Sets some thresholds (the others keep their values) in one transaction. Ranges are the schema's;
 * pairs that must stay ordered (least below greatest) are checked here, naming the field sent.
 */
export async function saveThresholds(db: Db, sent: Partial<QualityThresholds>): Promise<QualityThresholds> {
  // Fields that name no threshold are ignored, as DRF's serializers ignore unknown fields.
  const changes: Partial<QualityThresholds> = Object.fromEntries(Object.entries(sent).filter(([name]) => (NAMES as string[]).includes(name)));
  for (const [name, value] of Object.entries(changes)) {
    const range = THRESHOLD_RANGES[name as keyof QualityThresholds];
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new ValidationError({ [name]: ['A valid number is required.'] });
    if (value < range.minimum) throw new ValidationError({ [name]: [`Ensure this value is greater than or equal to ${range.minimum}.`] });
    if (value > range.maximum) throw new ValidationError({ [name]: [`Ensure this value is less than or equal to ${range.maximum}.`] });
  }
  return write(db, async (ctx) => {
    const current = { ...(await readThresholds(ctx.trx)), ...changes };
    for (const [low, high] of [['min_brightness', 'max_brightness'], ['min_overlap', 'max_overlap']] as const) {
      if (current[low] >= current[high]) {
        const field = low in changes ? low : high;
        throw new ValidationError({ [field]: [`${low} must be below ${high} (${current[low]} >= ${current[high]}).`] });
      }
    }
    for (const [name, value] of Object.entries(changes)) {
      await ctx.trx.deleteFrom('photo_quality_settings').where('name', '=', name).execute();
      await ctx.trx.insertInto('photo_quality_settings').values({ name, value: value as number }).execute();
    }
    // Every visit's flagged photos, judged again under the new thresholds in one statement.
    if (Object.keys(changes).length > 0) await judgeFlagged(ctx.trx, null, current);
    return current;
  });
}

export async function storedMeasures(db: Db, ids: readonly string[]): Promise<Map<string, PixelMeasures>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('photo_measures').selectAll().where('upload_id', 'in', [...ids]).execute();
  return new Map(rows.map((r) => [r.upload_id, JSON.parse(r.measures) as PixelMeasures]));
}

async function keepMeasures(db: Db, uploadId: string, m: PixelMeasures): Promise<void> {
  await write(db, async ({ trx }) => {
    await trx
      .insertInto('photo_measures')
      .values({ upload_id: uploadId, measures: JSON.stringify(m), created_at: now() })
      .onConflict((oc) => oc.column('upload_id').doNothing())
      .execute();
    // A photo measured after its scene was stored: the overview's flagged counts of its visits.
    await projectVisits(trx, await visitsOfPhoto(trx, uploadId));
  });
}

/** Issue of a photo whose pixels could not be measured: said, never passed silently. */
function notChecked(reason: string): QualityIssue {
  return { code: 'not_checked', severity: 'check', value: reason, threshold: null, message: `The photo's quality could not be checked (${reason}): look at it before leaving the shelf.` };
}

/**
 * An upload's measures: stored ones, or measured now from its file (an upload made before the checks
 * existed, or one that arrived by sync) and kept. Null, with the reason, when its file is not here or
 * cannot be decoded.
 */
export async function measuresOf(
  db: Db,
  dataDir: string,
  upload: Pick<UploadRow, 'id' | 'file'>,
  known?: Map<string, PixelMeasures>,
  bucket: PhotoBucket = null,
): Promise<PixelMeasures | string> {
  const stored = known?.get(upload.id) ?? (await storedMeasures(db, [upload.id])).get(upload.id);
  if (stored) return stored;
  let file: string;
  try {
    // On a central, a photo another process received comes from the bucket.
    file = await localUploadFile(dataDir, bucket, upload);
  } catch (error) {
    // Said as not checked rather than failing the answer (a /recognize that has stored its scene).
    if (error instanceof BucketUnavailableError) return 'the photo store is unreachable for now';
    throw error;
  }
  if (!(await access(file).then(() => true, () => false))) return 'the photo has not reached this instance yet';
  try {
    const m = await measurePhoto(file);
    await keepMeasures(db, upload.id, m);
    return m;
  } catch {
    return 'the image could not be decoded';
  }
}

/** Measures a just-stored upload and judges it: the upload's own answer. */
export async function uploadQuality(db: Db, dataDir: string, upload: Pick<UploadRow, 'id' | 'file'>, bucket: PhotoBucket = null): Promise<PhotoQuality> {
  const m = await measuresOf(db, dataDir, upload, undefined, bucket);
  if (typeof m === 'string') return summarise([notChecked(m)]);
  return summarise(judgePixels(m, await readThresholds(db)));
}

export interface PhotoOfScene {
  upload: Pick<UploadRow, 'id' | 'file'>;
  /** The detector's findings once the scene is analysed (image size and boxes, corners in pixels). */
  detected?: { width: number; height: number; boxes: { x1: number; y1: number; x2: number; y2: number }[] };
}

/** A photo's quality within its scene (the schema's type); detection_checked once the detector's checks are included. */
export type ScenePhotoQuality = Static<typeof ScenePhotoQualitySchema>;

/**
 * The quality of each photo of a scene, in rack order: its pixel checks, a repeat of a photo earlier in
 * the scene or in `earlier` (the visit's other photos), its overlap with the previous photo, and when
 * the scene is analysed, distance and coverage from the detector's boxes.
 */
export async function sceneQuality(
  db: Db,
  dataDir: string,
  photos: readonly PhotoOfScene[],
  earlier: readonly Pick<UploadRow, 'id' | 'file'>[],
  bucket: PhotoBucket = null,
): Promise<ScenePhotoQuality[]> {
  const t = await readThresholds(db);
  const known = await storedMeasures(db, [...photos.map((p) => p.upload.id), ...earlier.map((u) => u.id)]);
  const seen: { id: string; hash: string }[] = [];
  for (const u of earlier) {
    const m = known.get(u.id);
    // Earlier photos not measured yet are skipped here rather than decoded: they are measured when
    // their own scene is asked about.
    if (m) seen.push({ id: u.id, hash: m.hash });
  }
  const out: ScenePhotoQuality[] = [];
  let previous: PixelMeasures | null = null;
  for (let i = 0; i < photos.length; i++) {
    const p = photos[i];
    const m = await measuresOf(db, dataDir, p.upload, known, bucket);
    const issues: QualityIssue[] = [];
    if (typeof m === 'string') issues.push(notChecked(m));
    else {
      issues.push(...judgePixels(m, t));
      const dup = judgeDuplicate(m.hash, seen, t);
      if (dup) issues.push(dup);
      if (previous) {
        const overlap = judgeOverlap(estimateOverlap(previous.profile, m.profile), t);
        if (overlap) issues.push(overlap);
      }
      seen.push({ id: p.upload.id, hash: m.hash });
    }
    previous = typeof m === 'string' ? null : m;
    if (p.detected) {
      const boxes: Box[] = p.detected.boxes.map((b) => ({ x: b.x1, y: b.y1, w: b.x2 - b.x1, h: b.y2 - b.y1 }));
      issues.push(...judgeBoxes(boxes, p.detected, t, { left: i === 0, right: i === photos.length - 1 }));
    }
    out.push({ image: p.upload.id, detection_checked: p.detected !== undefined, ...summarise(issues) });
  }
  return out;
}
