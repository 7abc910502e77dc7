// Training data out of supervisors' reviews (`npm run cli -- export-training --out DIR`):
// the photos of reviewed scenes with their corrected boxes in COCO format, for the detector, and the
// corrected product crops per SKU, for the product embedder. Only scenes whose every photo a reviewer
// saved are exported: a half-reviewed scene still holds the model's own mistakes.
//
//   DIR/annotations.json   {info, images: [{id, file_name, width, height, upload, scene}],
//                           annotations: [{id, image_id, category_id: 1, bbox: [x, y, w, h], area,
//                           iscrowd: 0, attributes: {sku_id, unknown_on_purpose}}],
//                           categories: [{id: 1, name: "product"}]}
//   DIR/images/<n>.jpg     the photo as displayed (EXIF orientation applied, as the boxes are)
//   DIR/crops/<sku id>/<n>.jpg   one crop per box with an SKU
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import sharp from 'sharp';
import type { Database } from '../storage/schema.js';
import type { StoredBox } from './review.js';
import { getUpload } from '../domain/uploads.js';
import { localUploadFile, type PhotoBucket } from '../domain/upload-cache.js';
import { reviewedPhotos, scenesByIds } from './queries.js';

export interface ExportOptions {
  /** ISO date: only scenes whose review was last saved at or after it. */
  since?: string;
}

export interface ExportSummary {
  scenes: number;
  images: number;
  annotations: number;
  crops: number;
}

/** A folder name for an SKU id: ids are client-chosen and may hold '/', '..' or other path syntax. */
export function skuFolder(skuId: string): string {
  const name = encodeURIComponent(skuId);
  return name === '.' || name === '..' ? name.replace(/\./g, '%2E') : name;
}

export async function exportTraining(db: Kysely<Database>, dataDir: string, outDir: string, options: ExportOptions = {}, bucket: PhotoBucket = null): Promise<ExportSummary> {
  const rows = await reviewedPhotos(db);
  const byScene = new Map<string, typeof rows>();
  for (const row of rows) byScene.set(row.scene_id, [...(byScene.get(row.scene_id) ?? []), row]);
  const scenes = await scenesByIds(db, [...byScene.keys()]);

  await mkdir(path.join(outDir, 'images'), { recursive: true });
  await mkdir(path.join(outDir, 'crops'), { recursive: true });
  const coco = {
    info: { description: 'Shelf Audit reviewed scenes', date_created: new Date().toISOString(), since: options.since ?? null },
    images: [] as Array<{ id: number; file_name: string; width: number; height: number; upload: string; scene: string }>,
    annotations: [] as Array<{ id: number; image_id: number; category_id: 1; bbox: number[]; area: number; iscrowd: 0; attributes: { sku_id: string | null; unknown_on_purpose: boolean } }>,
    categories: [{ id: 1, name: 'product' }],
  };
  const cropCount = new Map<string, number>();
  let exportedScenes = 0;
  let crops = 0;
  for (const scene of scenes) {
    const reviewed = byScene.get(scene.id)!;
    const photos = JSON.parse(scene.images) as string[];
    if (!photos.every((p) => reviewed.some((row) => row.image_id === p))) continue;
    if (options.since !== undefined && !reviewed.some((row) => row.updated_at >= options.since!)) continue;
    exportedScenes += 1;
    for (const photo of photos) {
      const row = reviewed.find((x) => x.image_id === photo)!;
      const upload = await getUpload(db, photo);
      // Decoded once, oriented as displayed: the boxes are in these pixels.
      const { data, info } = await sharp(await localUploadFile(dataDir, bucket, upload), { limitInputPixels: false }).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const raw = { raw: { width: info.width, height: info.height, channels: info.channels } };
      const imageId = coco.images.length + 1;
      const fileName = `images/${imageId}.jpg`;
      await sharp(data, raw).jpeg({ quality: 92 }).toFile(path.join(outDir, fileName));
      coco.images.push({ id: imageId, file_name: fileName, width: info.width, height: info.height, upload: photo, scene: scene.id });
      for (const box of JSON.parse(row.boxes) as StoredBox[]) {
        const x = Math.max(0, box.x - box.w / 2);
        const y = Math.max(0, box.y - box.h / 2);
        const w = Math.min(info.width, box.x + box.w / 2) - x;
        const h = Math.min(info.height, box.y + box.h / 2) - y;
        const r2 = (v: number) => Math.round(v * 100) / 100;
        coco.annotations.push({
          id: coco.annotations.length + 1,
          image_id: imageId,
          category_id: 1,
          bbox: [r2(x), r2(y), r2(w), r2(h)],
          area: r2(w * h),
          iscrowd: 0,
          attributes: { sku_id: box.sku_id, unknown_on_purpose: box.unknown_on_purpose },
        });
        if (box.sku_id === null) continue;
        const left = Math.round(x);
        const top = Math.round(y);
        const width = Math.min(info.width - left, Math.round(w));
        const height = Math.min(info.height - top, Math.round(h));
        if (width < 1 || height < 1) continue;
        const folder = path.join(outDir, 'crops', skuFolder(box.sku_id));
        const n = (cropCount.get(box.sku_id) ?? 0) + 1;
        cropCount.set(box.sku_id, n);
        await mkdir(folder, { recursive: true });
        await sharp(data, raw).extract({ left, top, width, height }).jpeg({ quality: 92 }).toFile(path.join(folder, `${n}.jpg`));
        crops += 1;
      }
    }
  }
  await writeFile(path.join(outDir, 'annotations.json'), JSON.stringify(coco, null, 1));
  return { scenes: exportedScenes, images: coco.images.length, annotations: coco.annotations.length, crops };
}
