// The identifier's best SKUs for one box a reviewer drew or moved (docs/recognition.md, "Review"):
// the crop is cut straight from the photo file (no full decode) and identified against the current
// catalog, as the pipeline does for the boxes it detects (on the analysis thread in the server).
import sharp from 'sharp';
import type { Kysely } from 'kysely';
import { NotFoundError, ValidationError, messages } from '../domain/errors.js';
import type { Database } from '../storage/schema.js';
import type { SceneAnalysis } from '../recognition/analysis.js';
import type { Analyzer } from '../recognition/analyzer/scene-analyzer.js';
import { loadIdentifier } from '../recognition/identification/references.js';
import { getUpload } from '../domain/uploads.js';
import { localUploadFile, type PhotoBucket } from '../domain/upload-cache.js';
import { findScene } from './queries.js';

export interface SuggestionBox {
  image: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

export async function suggestSkus(
  db: Kysely<Database>,
  dataDir: string,
  analyzer: Pick<Analyzer, 'describe' | 'identify'>,
  sceneId: string,
  box: SuggestionBox,
  bucket: PhotoBucket = null,
): Promise<{ sku_id: string; score: number }[]> {
  const scene = await findScene(db, sceneId);
  if (!scene) throw new NotFoundError('scene');
  if (!(JSON.parse(scene.images) as string[]).includes(box.image)) {
    throw new ValidationError({ image: [`${messages.doesNotExist(box.image)} The scene has no such photo.`] });
  }
  const upload = await getUpload(db, box.image);
  // The photo as displayed (EXIF orientation applied): the size the boxes are in.
  const size = scene.analysis ? (JSON.parse(scene.analysis) as SceneAnalysis).images.find((i) => i.image === box.image) : undefined;
  const width = size?.width ?? upload.width;
  const height = size?.height ?? upload.height;
  const left = Math.max(0, Math.floor(box.x - box.w / 2));
  const top = Math.max(0, Math.floor(box.y - box.h / 2));
  const right = Math.min(width, Math.ceil(box.x + box.w / 2));
  const bottom = Math.min(height, Math.ceil(box.y + box.h / 2));
  if (right - left < 2 || bottom - top < 2) {
    throw new ValidationError({ non_field_errors: [`The box (centre ${box.x}, ${box.y}, size ${box.w} x ${box.h}) does not cover the ${width} x ${height} photo.`] });
  }
  const { data, info } = await sharp(await localUploadFile(dataDir, bucket, upload), { failOn: 'error', limitInputPixels: false })
    .rotate()
    .extract({ left, top, width: right - left, height: bottom - top })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const identifier = await loadIdentifier(db, dataDir, analyzer, bucket);
  const [identity] = await analyzer.identify([{ data, width: info.width, height: info.height, channels: info.channels }], identifier);
  return identity.suggestions.map((s) => ({ sku_id: s.skuId, score: s.score }));
}
