// SKU reference images: what identification compares products against. The descriptor of a
// reference is computed once, when it is added, and stored with it; recognition loads the stored
// descriptors instead of decoding every reference image per request.
import { stat } from 'node:fs/promises';
import type { Kysely } from 'kysely';
import { NotFoundError, ValidationError, messages } from '../../domain/errors.js';
import { newId, now } from '../../storage/ids.js';
import type { Database, SkuImageTable } from '../../storage/schema.js';
import { write } from '../../storage/transaction.js';
import { getUpload } from '../../domain/uploads.js';
import { CorruptPhotoError, localUploadFile, type PhotoBucket } from '../../domain/upload-cache.js';
import { decodeDescriptor, encodeDescriptor, type ProductDescriptor } from './describe.js';
import { embedderVersion } from './embedding.js';
import { Identifier, PIPELINE_IDENTIFIER } from './identifier.js';
import type { Rect } from '../raw-pixels.js';

export interface SkuImageRecord {
  id: string;
  sku: string;
  upload: string;
  crop: Rect | null;
  /** 'upload': added by hand; 'review': learnt from a supervisor's corrected box. */
  source: 'upload' | 'review';
  created_date: string;
}

type Row = Pick<SkuImageTable, 'id' | 'sku_id' | 'upload_id' | 'crop' | 'source' | 'created_at'>;
const COLUMNS = ['id', 'sku_id', 'upload_id', 'crop', 'source', 'created_at'] as const;

function present(r: Row): SkuImageRecord {
  return { id: r.id, sku: r.sku_id, upload: r.upload_id, crop: r.crop ? (JSON.parse(r.crop) as Rect) : null, source: r.source, created_date: r.created_at };
}

/** Computes a reference image's descriptor (describe.ts); the server's runs on the analysis thread. */
export interface Describer {
  describe(path: string, crop: Rect | null): Promise<ProductDescriptor>;
}

export async function requireSku(db: Kysely<Database>, skuId: string): Promise<void> {
  const sku = await db.selectFrom('skus').select('id').where('id', '=', skuId).executeTakeFirst();
  if (!sku) throw new NotFoundError('sku');
}

/** A reference's crop must lie inside its image (displayed size). */
export function checkCrop(crop: Rect | null, image: { width: number; height: number }): void {
  if (!crop) return;
  const inside = crop.x >= 0 && crop.y >= 0 && crop.w >= 1 && crop.h >= 1 && crop.x + crop.w <= image.width && crop.y + crop.h <= image.height;
  if (!inside) throw new ValidationError({ crop: [`The crop must lie inside the ${image.width}x${image.height} image.`] });
}

export async function addSkuImage(
  db: Kysely<Database>,
  dataDir: string,
  describer: Describer,
  skuId: string,
  input: { upload: string; crop?: Rect | null },
  bucket: PhotoBucket = null,
): Promise<SkuImageRecord> {
  await requireSku(db, skuId);
  const upload = await getUpload(db, input.upload).catch(() => {
    throw new ValidationError({ image: [messages.doesNotExist(input.upload)] });
  });
  const crop = input.crop ?? null;
  checkCrop(crop, upload);
  const descriptor = encodeDescriptor(await describer.describe(await localUploadFile(dataDir, bucket, upload), crop));
  return write(db, async (ctx) => {
    const at = now();
    const row = { id: newId(), sku_id: skuId, upload_id: upload.id, crop: crop ? JSON.stringify(crop) : null, descriptor, source: 'upload' as const, correction_id: null, created_at: at, updated_at: at };
    await ctx.trx.insertInto('sku_images').values(row).execute();
    ctx.changed('sku_image', row.id);
    return present(row);
  });
}

export async function listSkuImages(db: Kysely<Database>, skuId: string, page: { limit: number; offset: number }): Promise<{ count: number; results: SkuImageRecord[] }> {
  await requireSku(db, skuId);
  const q = db.selectFrom('sku_images').where('sku_id', '=', skuId);
  const [{ n }] = await q.select((eb) => eb.fn.countAll().as('n')).execute();
  const rows = await q.select(COLUMNS).orderBy('data_id').limit(page.limit).offset(page.offset).execute();
  return { count: Number(n), results: rows.map(present) };
}

/**
 * Reference images of many SKUs in one list (a screen's pictures, one request per page of products):
 * of the SKUs in `skuIds` when given, only each SKU's first image when `first`; in creation order.
 */
export async function listManySkuImages(
  db: Kysely<Database>,
  query: { skuIds?: string[]; first?: boolean },
  page: { limit: number; offset: number },
): Promise<{ count: number; results: SkuImageRecord[] }> {
  const ids = query.skuIds;
  if (ids && ids.length === 0) return { count: 0, results: [] };
  let q = db.selectFrom('sku_images');
  if (ids) q = q.where('sku_id', 'in', ids);
  if (query.first) {
    q = q.where('data_id', 'in', (eb) => {
      const firsts = eb.selectFrom('sku_images').select((e) => e.fn.min('data_id').as('first')).groupBy('sku_id');
      return ids ? firsts.where('sku_id', 'in', ids) : firsts;
    });
  }
  const [{ n }] = await q.select((eb) => eb.fn.countAll().as('n')).execute();
  const rows = await q.select(COLUMNS).orderBy('data_id').limit(page.limit).offset(page.offset).execute();
  return { count: Number(n), results: rows.map(present) };
}

export async function deleteSkuImage(db: Kysely<Database>, skuId: string, imageId: string): Promise<void> {
  await write(db, async (ctx) => {
    const r = await ctx.trx.deleteFrom('sku_images').where('id', '=', imageId).where('sku_id', '=', skuId).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) throw new NotFoundError('sku image');
    ctx.changed('sku_image', imageId, 'delete');
  });
}

function attributeValues(json: string | null): string[] {
  if (!json) return [];
  try {
    const o = JSON.parse(json) as Record<string, unknown>;
    return Object.values(o).filter((v): v is string => typeof v === 'string');
  } catch {
    return [];
  }
}

/** An identifier over every stored reference (recomputing descriptors stored by an older version). */
// The identifier of each database's current catalog. The worker pool sends a catalog to its threads
// only when it gets an identifier it has not seen, so reusing one while the references are unchanged
// spares every job both the reload here and the re-send there.
const cachedIdentifiers = new WeakMap<Kysely<Database>, { key: string; identifier: Identifier }>();

function embedderKey(): string {
  try {
    return String(embedderVersion());
  } catch {
    return 'none'; // no embedder file: describing fails later, with its own message
  }
}

export async function loadIdentifier(db: Kysely<Database>, dataDir: string, describer: Describer, bucket: PhotoBucket = null): Promise<Identifier> {
  // The references' ids and SKUs (an SKU rename cascades into sku_id) say whether the catalog changed;
  // reading them skips the descriptor blobs.
  const keys = await db.selectFrom('sku_images').select(['id', 'sku_id']).orderBy('data_id').execute();
  // The names of the SKUs with references, which the text of look-alikes is compared with.
  const names = await db
    .selectFrom('skus')
    .select(['id', 'name', 'attributes'])
    .where('id', 'in', (eb) => eb.selectFrom('sku_images').select('sku_id'))
    .orderBy('id')
    .execute();
  // The embedder too: another model's vectors are recomputed, so the catalog is another.
  const key =
    `${embedderKey()}\u0002` + keys.map((k) => `${k.id}\u0000${k.sku_id}`).join('\u0001') + '\u0003' + names.map((n) => `${n.id}\u0000${n.name}\u0000${n.attributes ?? ''}`).join('\u0001');
  const cached = cachedIdentifiers.get(db);
  if (cached?.key === key) return cached.identifier;

  // Products cut out by the detector are tight crops: the global shortlist holds their SKU, so no vote
  // shortlist, and at most two references per SKU verified (see IdentifierOptions; docs/recognition.md).
  const identifier = new Identifier(PIPELINE_IDENTIFIER);
  for (const n of names) identifier.skuNames.set(n.id, { name: n.name, text: [n.name, ...attributeValues(n.attributes)].join(' ') });
  const rows = await db
    .selectFrom('sku_images')
    .innerJoin('uploads', 'uploads.id', 'sku_images.upload_id')
    .select(['sku_images.id', 'sku_images.sku_id', 'sku_images.crop', 'sku_images.descriptor', 'uploads.file'])
    .execute();
  let absent = 0;
  for (const r of rows) {
    let descriptor = r.descriptor ? decodeDescriptor(r.descriptor) : null;
    // On a central, a photo another process received comes from the bucket (the describer runs on the
    // analysis thread, which reads local files only).
    let file: string | null = null;
    try {
      file = descriptor ? null : await localUploadFile(dataDir, bucket, r);
    } catch (error) {
      // One photo the bucket holds corrupted must not stop recognition: that reference waits, like a missing one.
      if (!(error instanceof CorruptPhotoError)) throw error;
    }
    if (!descriptor && !(file && (await stat(file).catch(() => null)))) {
      // A reference pulled from the central whose photo has not come down yet: left out this time.
      absent++;
      continue;
    }
    if (!descriptor) {
      descriptor = await describer.describe(file!, r.crop ? (JSON.parse(r.crop) as Rect) : null);
      await db.updateTable('sku_images').set({ descriptor: encodeDescriptor(descriptor) }).where('id', '=', r.id).execute();
    }
    identifier.add({ id: r.id, skuId: r.sku_id, descriptor });
  }
  // Not cached while photos are missing: the next job looks again.
  if (absent === 0) cachedIdentifiers.set(db, { key, identifier });
  return identifier;
}
