// A visit as a PDF a customer can read (pdfkit): the visit (shop, agent, date, review status), its
// KPIs, then each scene: its display, its photos with the recognised boxes drawn on them (REALOGRAM:
// green identified, red unknown), the facings per product, planogram and must-have compliance with
// the missing products, and the actions to take. Photos are re-encoded small (sharp) so a visit of
// ten scenes stays a few megabytes. The document is a stream: pages go out as they are made.
// Text is set in DejaVu Sans (@fontsource/dejavu-sans, embedded and subset by pdfkit), so SKU and
// shop names in any script the font covers (Latin, Greek, Cyrillic and more) print as they are; a
// character it has no glyph for (CJK) prints as the font's empty box, leaving the rest intact.
import { createRequire } from 'node:module';
import type { Kysely } from 'kysely';
// pdfkit is loaded when a PDF is asked for (0.16 s of every start otherwise).
import type PDFDocumentModule from 'pdfkit';
import sharp from 'sharp';
import type { Database } from '../../storage/schema.js';
import { NotFoundError } from '../errors.js';
import { uploadFilePath } from '../uploads.js';
import { KPI_CIDS } from '../overview/queries.js';

type Db = Kysely<Database>;

interface Annotation {
  sku_id: string | null;
  x: number;
  y: number;
  w: number;
  h: number;
}
interface RealogramImage {
  image: string;
  width: number;
  height: number;
  annotations: Annotation[];
}
interface PlanogramBody {
  compliance: number;
  expected_faces: number;
  correct_faces: number;
  actions?: { type: string; sku_id: string | null; message: string }[];
}
/** PRICE_COMPLIANCE (scenes/reports/bodies.ts), the fields the report shows. */
interface PriceBody {
  compliance: number | null;
  checked: number;
  ok: number;
  skus: { sku_id: string; name: string | null; expected_price: string | null; expected_currency: string | null; found_prices: { price: string; currency: string | null }[]; status: string }[];
}
interface MhlBody {
  compliance: number;
  records: { mhl_record_id: string; compliant: boolean; found_sku_id: string | null }[];
}

/** The longest side of a photo in the document, in pixels (about 200 dpi across the page). */
const PHOTO_PIXELS = 1400;
const MARGIN = 40;

const percent = (v: number | null | undefined) => (v === null || v === undefined ? '-' : `${Math.round(v * 10) / 10}%`);
/** Control characters (a line break in a name) would move the text: shown as spaces. */
const text = (s: string | null | undefined) => (s ?? '').replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');

/** The document's fonts: the body and bold weights of DejaVu Sans, from the package's files (resolved when a PDF is first asked for). */
const FONT_FILES = { Body: 'dejavu-sans-latin-400-normal.woff', Bold: 'dejavu-sans-latin-700-normal.woff' } as const;
let fontPaths: Record<keyof typeof FONT_FILES, string> | undefined;
function fonts(): Record<keyof typeof FONT_FILES, string> {
  const require = createRequire(import.meta.url);
  fontPaths ??= { Body: require.resolve(`@fontsource/dejavu-sans/files/${FONT_FILES.Body}`), Bold: require.resolve(`@fontsource/dejavu-sans/files/${FONT_FILES.Bold}`) };
  return fontPaths;
}

/** Everything the report shows, read before the first byte is written (so an unknown visit is a 404). */
async function readVisit(db: Db, visitId: string) {
  const visit = await db.selectFrom('visits').selectAll().where('id', '=', visitId).executeTakeFirst();
  if (!visit) throw new NotFoundError('visit');
  const scenes = await db.selectFrom('scenes').select(['id', 'display_id', 'images', 'created_at']).where('visit_id', '=', visitId).orderBy('created_at').orderBy('id').execute();
  const reports = await db
    .selectFrom('reports')
    .select(['scene_id', 'report_type', 'json'])
    .where('visit_id', '=', visitId)
    .where('status', '=', 'READY')
    .orderBy('updated_at')
    .execute();
  const kpis = await db
    .selectFrom('kpi_values as kv')
    .innerJoin('kpis as k', 'k.id', 'kv.kpi_id')
    .select(['k.cid', 'kv.value'])
    .where('kv.visit_id', '=', visitId)
    .where('kv.category_id', 'is', null)
    .execute();
  const byScene = new Map<string, Map<string, unknown>>();
  for (const r of reports) {
    if (r.json === null) continue;
    const m = byScene.get(r.scene_id) ?? new Map<string, unknown>();
    m.set(r.report_type, JSON.parse(r.json));
    byScene.set(r.scene_id, m);
  }
  const skuIds = new Set<string>();
  const mhlIds = new Set<string>();
  for (const m of byScene.values()) {
    for (const f of (m.get('FACING_COUNT') as { sku_id: string | null }[] | undefined) ?? []) if (f.sku_id) skuIds.add(f.sku_id);
    for (const a of (m.get('PLANOGRAM_COMPLIANCE') as PlanogramBody | undefined)?.actions ?? []) if (a.sku_id) skuIds.add(a.sku_id);
    for (const r of (m.get('MHL_COMPLIANCE') as MhlBody | undefined)?.records ?? []) mhlIds.add(r.mhl_record_id);
  }
  const mhlSku = new Map<string, string>();
  if (mhlIds.size) for (const r of await db.selectFrom('mhl_records').select(['id', 'sku_id']).where('id', 'in', [...mhlIds]).execute()) {
    mhlSku.set(r.id, r.sku_id);
    skuIds.add(r.sku_id);
  }
  const skuNames = new Map<string, string>();
  if (skuIds.size) for (const r of await db.selectFrom('skus').select(['id', 'name']).where('id', 'in', [...skuIds]).execute()) skuNames.set(r.id, r.name);
  const displayIds = [...new Set(scenes.map((s) => s.display_id).filter((d): d is string => d !== null))];
  const displays = new Map<string, string>();
  if (displayIds.length) for (const r of await db.selectFrom('displays').select(['id', 'name']).where('id', 'in', displayIds).execute()) displays.set(r.id, r.name);
  const imageIds = [...new Set(scenes.flatMap((s) => JSON.parse(s.images) as string[]))];
  const uploads = new Map<string, { file: string; width: number; height: number }>();
  if (imageIds.length) for (const r of await db.selectFrom('uploads').select(['id', 'file', 'width', 'height']).where('id', 'in', imageIds).execute()) uploads.set(r.id, r);
  return { visit, scenes, byScene, kpis: new Map(kpis.map((k) => [k.cid, Number(k.value)])), mhlSku, skuNames, displays, uploads };
}

/** The visit's PDF as a stream; an unknown visit throws NotFoundError before anything is written. */
export async function visitReport(db: Db, dataDir: string, visitId: string, signal?: AbortSignal): Promise<NodeJS.ReadableStream> {
  const data = await readVisit(db, visitId);
  const PDFDocument = ((await import('pdfkit')) as unknown as { default: typeof PDFDocumentModule }).default;
  const doc = new PDFDocument({ size: 'A4', margin: MARGIN, info: { Title: `Visit ${data.visit.name ?? data.visit.id}`, Creator: 'Shelf Audit' } });
  for (const [name, file] of Object.entries(fonts())) doc.registerFont(name, file);
  doc.font('Body');
  void write(doc, data, dataDir, signal).catch((e: unknown) => doc.emit('error', e));
  return doc;
}

async function write(doc: PDFKit.PDFDocument, data: Awaited<ReturnType<typeof readVisit>>, dataDir: string, signal?: AbortSignal): Promise<void> {
  const { visit, scenes, byScene, kpis, mhlSku, skuNames, displays, uploads } = data;
  const name = (sku: string | null) => (sku === null ? 'Unknown product' : text(skuNames.get(sku) ?? sku));
  const width = doc.page.width - 2 * MARGIN;
  doc.font('Bold').fontSize(18).text(`Visit report: ${text(visit.name ?? visit.id)}`);
  doc.moveDown(0.5).font('Body').fontSize(10);
  doc.text(`Visit: ${text(visit.id)}`);
  doc.text(`Shop: ${text(visit.shop_name ?? visit.shop ?? '-')}${visit.shop && visit.shop_name ? ` (${text(visit.shop)})` : ''}`);
  doc.text(`Agent: ${text(visit.current_agent_name ?? visit.agent ?? '-')}`);
  doc.text(`Date: ${text(visit.started_date ?? visit.created_at)}`);
  doc.text(`Review status: ${text(visit.moderation ?? 'unreviewed')}`);
  doc.moveDown(0.5).font('Bold').fontSize(12).text('Results');
  doc.font('Body').fontSize(10);
  doc.text(`On-shelf availability (must-have list): ${percent(kpis.get(KPI_CIDS.osa))}`);
  doc.text(`Planogram compliance: ${percent(kpis.get(KPI_CIDS.planogram))}`);
  doc.text(`Price compliance: ${percent(kpis.get(KPI_CIDS.price))}`);
  doc.text(`Total facings: ${kpis.get(KPI_CIDS.facings) ?? '-'}`);
  doc.text(`Scenes: ${scenes.length}`);
  if (scenes.length === 0) doc.moveDown().text('No photos were taken in this visit.');

  for (const [i, scene] of scenes.entries()) {
    if (signal?.aborted) break;
    doc.addPage();
    const reports = byScene.get(scene.id) ?? new Map<string, unknown>();
    doc.font('Bold').fontSize(14).text(`Scene ${i + 1}: ${scene.display_id ? text(displays.get(scene.display_id) ?? scene.display_id) : 'no display'}`);
    doc.font('Body').fontSize(9).text(`Taken ${text(scene.created_at)}`);
    doc.moveDown(0.5);
    const realogram = (reports.get('REALOGRAM') as RealogramImage[] | undefined) ?? [];
    for (const imageId of JSON.parse(scene.images) as string[]) {
      if (signal?.aborted) break;
      const upload = uploads.get(imageId);
      if (!upload) continue;
      let jpeg: Buffer;
      try {
        jpeg = await sharp(uploadFilePath(dataDir, upload)).rotate().resize(PHOTO_PIXELS, PHOTO_PIXELS, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 72 }).toBuffer();
      } catch {
        doc.fontSize(9).text(`(photo ${text(imageId)} could not be read)`);
        continue;
      }
      const found = realogram.find((r) => r.image === imageId);
      const srcW = found?.width ?? upload.width;
      const srcH = found?.height ?? upload.height;
      const maxH = doc.page.height - doc.y - MARGIN - 20;
      let scale = Math.min(width / srcW, 420 / srcH);
      if (srcH * scale > maxH) {
        doc.addPage();
        scale = Math.min(width / srcW, 420 / srcH);
      }
      const x0 = MARGIN;
      const y0 = doc.y;
      doc.image(jpeg, x0, y0, { width: srcW * scale, height: srcH * scale });
      for (const a of found?.annotations ?? []) {
        doc.lineWidth(0.8).strokeColor(a.sku_id === null ? '#d32f2f' : '#2e7d32')
          .rect(x0 + (a.x - a.w / 2) * scale, y0 + (a.y - a.h / 2) * scale, a.w * scale, a.h * scale).stroke();
      }
      doc.y = y0 + srcH * scale + 6;
      doc.x = MARGIN;
      doc.fillColor('black').fontSize(8).text(`Green: identified products; red: not identified. ${found ? found.annotations.length : 0} boxes.`);
      doc.moveDown(0.5);
    }
    const facings = (reports.get('FACING_COUNT') as { sku_id: string | null; count: number }[] | undefined) ?? [];
    doc.font('Bold').fontSize(11).text('Facings');
    doc.font('Body').fontSize(9);
    if (facings.length === 0) doc.text('No products counted.');
    for (const f of facings) doc.text(`${name(f.sku_id)}: ${f.count}`);
    const planogram = reports.get('PLANOGRAM_COMPLIANCE') as PlanogramBody | undefined;
    const mhl = reports.get('MHL_COMPLIANCE') as MhlBody | undefined;
    doc.moveDown(0.5).font('Bold').fontSize(11).text('Compliance');
    doc.font('Body').fontSize(9);
    doc.text(`Planogram: ${planogram ? `${percent(planogram.compliance * 100)} (${planogram.correct_faces} of ${planogram.expected_faces} faces placed correctly)` : 'no planogram'}`);
    if (mhl) {
      const missingSkus = mhl.records.filter((r) => !r.compliant).map((r) => mhlSku.get(r.mhl_record_id) ?? null);
      doc.text(`Must-have list: ${percent(mhl.compliance * 100)} (${mhl.records.length - missingSkus.length} of ${mhl.records.length} present)`);
      for (const sku of missingSkus) doc.text(`Missing: ${name(sku)}`);
    } else {
      doc.text('Must-have list: none');
    }
    const prices = reports.get('PRICE_COMPLIANCE') as PriceBody | undefined;
    doc.text(`Prices: ${prices && prices.compliance !== null ? `${percent(prices.compliance * 100)} (${prices.ok} of ${prices.checked} tags show the price list's price)` : 'not checked'}`);
    const money = (p: string, currency: string | null) => `${p}${currency ? ` ${currency}` : ''}`;
    const wrong = (prices?.skus ?? []).filter((k) => k.status === 'wrong_price' && k.expected_price !== null);
    const actions = [
      ...(planogram?.actions ?? []).map((a) => a.message),
      ...wrong.map((k) => `Fix the price tag of ${k.name ?? k.sku_id}: it shows ${k.found_prices.map((f) => money(f.price, f.currency)).join(', ')}, the price list says ${money(k.expected_price!, k.expected_currency)}`),
    ];
    doc.moveDown(0.5).font('Bold').fontSize(11).text('Actions to take');
    doc.font('Body').fontSize(9);
    if (actions.length === 0) doc.text('None.');
    for (const a of actions) doc.text(`- ${text(a)}`);
  }
  doc.end();
}
