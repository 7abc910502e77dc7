// While an auditor adds the photos of a bay one after the other, each new photo's overlap with the one
// before: a quick registration of the two (bay/register.ts, on small grey copies and without boxes,
// since nothing is detected yet), so a photo that will not join is retaken at the shelf, not found out
// in the reports. The scene's own join, after detection, stays the one that counts.
import sharp from 'sharp';
import type { Kysely } from 'kysely';
import { ValidationError, messages } from '../domain/errors.js';
import { getUpload } from '../domain/uploads.js';
import { localUploadFile, type PhotoBucket } from '../domain/upload-cache.js';
import type { Database } from '../storage/schema.js';
import { loadOpenCv } from '../recognition/opencv.js';
import { registerBay, type BayPhoto, type NotJoinedReason } from '../recognition/bay/register.js';

/** Grey pixels of the quick check: about half the scene's join's, so it answers in a fraction of a second. */
const QUICK_PIXELS = 300_000;
/** What auditors are asked for between neighbours. */
const GOOD_OVERLAP = 0.2;

export interface PhotoOverlap {
  joined: boolean;
  /** Share of the new photo's area that overlaps the one before (null when not joined). */
  overlap: number | null;
  reason: NotJoinedReason | null;
  /** For the auditor, in words. */
  message: string;
}

const ADVICE: Record<NotJoinedReason, string> = {
  no_features: 'This photo shows too little detail to be joined (blurred, or no shelf): take it again.',
  no_overlap: 'This photo does not overlap the one before: take it again with a quarter of the previous photo in view.',
  wild_transform: 'This photo matches the one before only through an impossible distortion: take it again straight on, with more overlap.',
  boxes_disagree: 'This photo does not show what the one before shows where they would overlap (another shelf?): take it again with more overlap.',
  other_part: 'This photo does not overlap the one before: take it again with a quarter of the previous photo in view.',
};

async function grey(db: Kysely<Database>, dataDir: string, bucket: PhotoBucket, id: string, field: string): Promise<BayPhoto> {
  const upload = await getUpload(db, id).catch(() => {
    throw new ValidationError({ [field]: [messages.doesNotExist(id)] });
  });
  const file = await localUploadFile(dataDir, bucket, upload);
  try {
    const meta = await sharp(file, { limitInputPixels: false }).metadata();
    // The photo as displayed: EXIF orientations 5 to 8 turn it a quarter.
    const [width, height] = (meta.orientation ?? 1) >= 5 ? [meta.height!, meta.width!] : [meta.width!, meta.height!];
    const scale = Math.min(1, Math.sqrt(QUICK_PIXELS / (width * height)));
    const { data, info } = await sharp(file, { failOn: 'error', limitInputPixels: false })
      .rotate()
      .resize(Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale)), { fit: 'fill' })
      .grayscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { image: id, width, height, gray: data, gw: info.width, gh: info.height, boxes: [] };
  } catch {
    throw new ValidationError({ [field]: [`Upload "${id}" could not be read as a photo.`] });
  }
}

/** How the photo `next` overlaps `previous`, both uploads, as the bay's join would find it (without boxes). */
export async function photoOverlap(db: Kysely<Database>, dataDir: string, bucket: PhotoBucket, previous: string, next: string): Promise<PhotoOverlap> {
  const a = await grey(db, dataDir, bucket, previous, 'previous');
  const b = await grey(db, dataDir, bucket, next, 'next');
  const bay = registerBay(await loadOpenCv(), [a, b]);
  const p = bay.photos[1];
  if (!p.joined) {
    const reason = bay.photos[0].reason === 'no_features' && p.reason !== 'no_features' ? 'no_overlap' : (p.reason ?? 'no_overlap');
    return { joined: false, overlap: null, reason, message: ADVICE[reason] };
  }
  // Joined to the previous photo (the reference): its share of this photo's area.
  const overlap = p.overlap ?? 0;
  const pct = Math.round(overlap * 100);
  const message =
    overlap >= 0.95
      ? 'This photo shows the same as the one before: move along the shelf before the next one.'
      : overlap < GOOD_OVERLAP
        ? `Joined, but only ${pct} % overlaps the photo before: 20 to 30 % joins more surely.`
        : `Joined to the photo before: ${pct} % overlaps it.`;
  return { joined: true, overlap: Math.round(overlap * 1000) / 1000, reason: null, message };
}
